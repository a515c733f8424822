# Sourced by the comparison scripts in benches/: builds the release binary, with OpenBLAS when
# the system has it (unless NATIVE=1 is set before sourcing), and sets FEATURES and BIN.
FEATURES=""
if [ "${NATIVE:-0}" != 1 ] && ldconfig -p 2>/dev/null | grep -q 'libopenblas\.so '; then
    FEATURES="--features blas"
fi
# shellcheck disable=SC2086
cargo build --release -q $FEATURES
BIN=target/release/mibound
