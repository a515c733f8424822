//! Each bound on a small fixed score matrix against values computed independently.
//!
//! Provenance: `python3 tests/reference/bounds_reference.py` (pure Python, `math` only, written
//! from the formulas in docs/bounds.md). Its output, pasted:
//!
//! ```text
//! infonce = 0.805485765173215
//! nwj = 1.017214618325605
//! tuba = 1.345511142531192
//! dv = 1.360280808025945
//! js_value = 1.017214618325605
//! js_shifted_value = 1.359481452794733
//! js_objective = -0.920409990823882
//! smile_tau_0.5 = 1.343585800666916
//! interpolated_alpha_0.3 = 1.090852892729340
//! interpolated_alpha_1 = 0.664218268540139
//! nce = -2.594721152469599
//! club = 1.106250000000000
//! loo = 1.370314359027445
//! ba_h3 = 4.400000000000000
//! ```

use mibound::bounds::{
    BarberAgakov, Bound, BoundValue, Club, Dv, InfoNce, Interpolated, Js, LeaveOneOut, LogBaseline, Nce, Nwj, Smile,
    Tuba,
};
use nalgebra::DMatrix;

fn s() -> DMatrix<f64> {
    DMatrix::from_row_slice(
        4,
        4,
        &[1.2, -0.3, 0.5, 0.1, 0.4, 2.0, -1.1, 0.3, -0.7, 0.2, 0.9, -0.4, 0.6, -0.5, 0.0, 1.5],
    )
}

const A: [f64; 4] = [0.3, -0.2, 0.1, 0.5];

fn eval(b: &mut dyn Bound<f64>) -> BoundValue {
    b.evaluate(&s(), &mut DMatrix::zeros(4, 4)).unwrap()
}

fn close(name: &str, got: f64, want: f64) {
    // Both sides are f64 evaluations of the same closed form; 1e-12 allows summation-order noise.
    assert!((got - want).abs() < 1e-12, "{name}: got {got:.15}, reference {want:.15}");
}

#[test]
fn values_match_the_independent_reference() {
    close("infonce", eval(&mut InfoNce::new()).value, 0.805485765173215);
    close("nwj", eval(&mut Nwj::new()).value, 1.017214618325605);
    close("tuba", eval(&mut Tuba::new(LogBaseline::PerSample(A.to_vec()))).value, 1.345511142531192);
    close("dv", eval(&mut Dv::new()).value, 1.360280808025945);
    let js = eval(&mut Js::new());
    close("js value", js.value, 1.017214618325605);
    close("js objective", js.objective, -0.920409990823882);
    let js_shifted = eval(&mut Js::shifted());
    close("js-shifted value", js_shifted.value, 1.359481452794733);
    close("js-shifted objective", js_shifted.objective, -0.920409990823882);
    close("smile", eval(&mut Smile::new(0.5).unwrap()).value, 1.343585800666916);
    let a = LogBaseline::PerSample(A.to_vec());
    close("I_0.3", eval(&mut Interpolated::new(0.3, a.clone()).unwrap()).value, 1.09085289272934);
    close("I_1", eval(&mut Interpolated::new(1.0, a).unwrap()).value, 0.664218268540139);
    close("nce", eval(&mut Nce::new(vec![-1.0, -0.5, -2.0, -1.5])).value, -2.594721152469599);
    close("club", eval(&mut Club).value, 1.10625);
    close("loo", eval(&mut LeaveOneOut).value, 1.370314359027445);
    close("ba", eval(&mut BarberAgakov::new(3.0).unwrap()).value, 4.4);
}

#[test]
fn f32_agrees_with_f64() {
    // f32 has a relative precision of 6e-8; these O(1) values over 16 entries agree to 1e-5.
    let s32 = s().map(|v| v as f32);
    let mut g = DMatrix::zeros(4, 4);
    let v32 = InfoNce::<f32>::new().evaluate(&s32, &mut g).unwrap().value;
    assert!((v32 - 0.805485765173215).abs() < 1e-5, "{v32}");
    let v32 = Bound::<f32>::evaluate(&mut Dv::new(), &s32, &mut g).unwrap().value;
    assert!((v32 - 1.360280808025945).abs() < 1e-5, "{v32}");
}
