//! A query the solver cannot decide in its time limit answers "may alias, undecided",
//! never "no alias". Its own test binary: the time limit is process-wide.

use tensor_lint_analyzer::oracle::{
    overlap, set_solver_timeout_ms, Assumptions, Cmp, Dim, Expr, RootId, Verdict, View,
};

fn one_element_at(offset: Expr) -> View {
    View {
        root: RootId(0),
        elem_bytes: 4,
        offset,
        dims: vec![Dim {
            len: Expr::int(1),
            stride: Expr::int(1),
        }],
    }
}

#[test]
fn an_undecidable_query_is_may_alias_and_says_undecided() {
    set_solver_timeout_ms(200);
    let (x, y, z) = (Expr::sym("x"), Expr::sym("y"), Expr::sym("z"));
    let cube = |e: &Expr| &(e * e) * e;
    // Element x³ + y³ against element z³: they never meet (Fermat, n = 3), which no
    // integer-arithmetic solver proves; the oracle must not claim it either way.
    let a = one_element_at(&cube(&x) + &cube(&y));
    let b = one_element_at(cube(&z));
    let mut assumptions = Assumptions::new();
    for s in [&x, &y, &z] {
        assumptions.push(s.clone(), Cmp::Ge, Expr::int(1));
    }
    let answer = overlap(&a, &b, &assumptions);
    assert_eq!(answer.verdict, Verdict::MayAlias, "{answer:?}");
    assert!(answer.undecided, "{answer:?}");
    assert!(
        answer.witness.is_none(),
        "an undecided answer has no witness: {answer:?}"
    );
}
