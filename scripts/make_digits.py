"""Regenerates src/tasks/data/digits.bin, the digit images of the `digits-*` tasks.

Source: scikit-learn's bundled copy of the UCI "Optical Recognition of Handwritten Digits" test
set (`sklearn.datasets.load_digits()`: 1797 images of 8 × 8 pixels with values 0..16, 10 classes),
distributed with scikit-learn under the BSD-3-Clause licence.

Images that occur (pixel for pixel) in more than one class are dropped, every copy of them, so an
image determines its class and I(X; Y) = I(C; C') holds exactly for the tasks. Images repeated
within one class are kept.

File format (all bytes): b"MIDIGITS", then u16 little-endian count N, then N class labels (one
byte each), then the N × 64 pixels (row-major, image after image) packed 5 bits each,
most significant bit first, zero-padded to a whole byte.

Run: python3 scripts/make_digits.py   (needs scikit-learn: pip install scikit-learn)
"""
from collections import defaultdict
from pathlib import Path

from sklearn.datasets import load_digits

d = load_digits()
images = [tuple(int(v) for v in row) for row in d.data]
labels = [int(c) for c in d.target]
classes = defaultdict(set)
for img, c in zip(images, labels):
    classes[img].add(c)
keep = [i for i, img in enumerate(images) if len(classes[img]) == 1]
dropped = len(images) - len(keep)
within = len(keep) - len({images[i] for i in keep})
print(f"{len(images)} images, {dropped} dropped (in two classes), {within} repeats within a class kept")

bits = []
for i in keep:
    for v in images[i]:
        assert 0 <= v <= 16
        bits.extend((v >> (4 - b)) & 1 for b in range(5))
bits.extend([0] * (-len(bits) % 8))
packed = bytes(int("".join(map(str, bits[k:k + 8])), 2) for k in range(0, len(bits), 8))
out = b"MIDIGITS" + len(keep).to_bytes(2, "little") + bytes(labels[i] for i in keep) + packed
path = Path(__file__).resolve().parent.parent / "src" / "tasks" / "data" / "digits.bin"
path.write_bytes(out)
print(f"wrote {path} ({len(out)} bytes)")
