//! How each value of a function was derived from another: the chain of views and
//! assignments that leads back to a parameter, an allocation or a pointer.

use std::collections::{BTreeSet, HashMap};

use crate::ir::{FnIr, Op, TyClass, ValueId, ValueKind, ViewOp};

/// How each value was derived: `dst -> (src, how)`, `how` being `None` for a plain
/// assignment.
pub type Derivations = HashMap<ValueId, (ValueId, Option<ViewOp>)>;

/// The [`Derivations`] of every view and assignment of `ir`.
pub fn derivations(ir: &FnIr) -> Derivations {
    let mut map = HashMap::new();
    for (_, _, stmt) in ir.stmts() {
        match &stmt.op {
            Op::View { dst, src, how } => {
                map.insert(*dst, (*src, Some(how.clone())));
            }
            Op::Assign { dst, src } => {
                map.insert(*dst, (*src, None));
            }
            _ => {}
        }
    }
    map
}

/// Whether `value` reaches its memory through something the borrow checker cannot see
/// into: a raw pointer, a view rebuilt from one, or a tensor handle.
pub fn is_unchecked(ir: &FnIr, derived: &Derivations, value: ValueId) -> bool {
    let mut seen = BTreeSet::new();
    let mut cur = value;
    while seen.insert(cur) {
        let Some(v) = ir.values.get(cur.0 as usize) else {
            return false;
        };
        if matches!(v.kind, ValueKind::RawPtr(_))
            || matches!(v.ty, TyClass::RawPtr | TyClass::Tensor)
        {
            return true;
        }
        match derived.get(&cur) {
            Some((_, Some(ViewOp::FromRaw { .. }))) => return true,
            Some((src, _)) => cur = *src,
            None => return false,
        }
    }
    false
}
