//! The steady-state training step does not allocate: a counting global allocator records heap
//! allocations made on this test's thread while steps run.
//!
//! mibound's own code (critics, bounds, Adam, data) allocates nothing after warm-up. With the
//! OpenBLAS backend (`--features blas`) the step makes no allocation at all (OpenBLAS's own
//! buffers, outside Rust's allocator, are counted by benches/count_allocations.sh). The native
//! backend, `matrixmultiply`, allocates one packing buffer inside every product; those are
//! counted separately with `gemm::calls()` and must be the only allocations.

use mibound::bounds::BoundSpec;
use mibound::critics::{CriticSpec, Init};
use mibound::data::rng;
use mibound::gemm::Backend;
use mibound::optim::{Adam, AdamConfig};
use mibound::tasks::Parametric;
use mibound::train::{Cursor, Data, Dataset, Schedule, TrainStep};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);
thread_local! {
    static COUNTING: Cell<bool> = const { Cell::new(false) };
}

// SAFETY: forwards to the system allocator; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        if COUNTING.with(|c| c.get()) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        if COUNTING.with(|c| c.get()) {
            ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        }
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// `(heap allocations, gemm products)` over 20 steady-state steps.
fn allocations_in_steps(
    critic: &CriticSpec,
    bound: &str,
    data: &Data,
    batch: usize,
    backend: Backend,
) -> (usize, usize) {
    let (dx, dy) = data.dims();
    let c = critic.build_with::<f32>(dx, dy, mibound::compute::Compute::new(backend, 1).unwrap()).unwrap();
    let mut params = c.init_params(Init::Torch, 1);
    let adam = Adam::new(AdamConfig::default(), params.len()).unwrap();
    let mut step = TrainStep::new(c, BoundSpec::parse(bound).unwrap().build().unwrap(), adam, batch, (dx, dy));
    let (mut g, mut cursor) = (rng(2), Cursor::default());
    // Warm-up: the first steps size every buffer.
    for s in 0..3 {
        step.run(&mut params, data, &mut g, &mut cursor, s).unwrap();
    }
    ALLOCATIONS.store(0, Ordering::Relaxed);
    let calls = mibound::gemm::calls();
    COUNTING.with(|c| c.set(true));
    for s in 3..23 {
        step.run(&mut params, data, &mut g, &mut cursor, s).unwrap();
    }
    COUNTING.with(|c| c.set(false));
    let products = (mibound::gemm::calls() - calls) as usize;
    (ALLOCATIONS.load(Ordering::Relaxed), products)
}

#[test]
fn steady_state_training_steps_do_not_allocate() {
    let stream = Data::stream(
        Parametric::Gaussian { dim: 4 },
        Schedule::Staircase { levels: vec![1.0, 2.0], steps_per_level: 10 },
    )
    .unwrap();
    let cubic = Data::stream(Parametric::Cubic { dim: 4 }, Schedule::Constant { mi: 1.0 }).unwrap();
    let (x, y) = {
        use mibound::data::Sampler;
        mibound::data::CorrelatedGaussian::with_mi(4, 1.0).unwrap().sample(64, &mut rng(3))
    };
    let table = Data::Dataset(Dataset::split(x, y, 0.25, 1).unwrap());
    let critics = [
        CriticSpec::poole_separable(),
        CriticSpec::parse("cosine").unwrap(),
        CriticSpec::parse("cpc").unwrap(),
        CriticSpec::parse("bilinear").unwrap(),
        CriticSpec::poole_concat(),
    ];
    for &backend in Backend::available() {
        for critic in &critics {
            for bound in ["infonce", "nwj", "dv", "mine", "js", "smile:5", "interpolated:0.01"] {
                for (name, data) in [("stream", &stream), ("cubic", &cubic), ("dataset", &table)] {
                    let (allocs, products) = allocations_in_steps(critic, bound, data, 16, backend);
                    assert!(products > 0);
                    // Native: every allocation is matrixmultiply's per-product packing buffer,
                    // none is ours. OpenBLAS: none at all.
                    let expected = if backend == Backend::Native { products } else { 0 };
                    assert_eq!(
                        allocs, expected,
                        "{backend:?}: {critic:?} + {bound} on {name}: {allocs} allocations, {products} products"
                    );
                }
            }
        }
    }
}
