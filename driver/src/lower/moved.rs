//! Pointers made by a closure from what it is given. `it.map(|s| s.as_ptr())` and
//! `opt.map(|v| v.as_ptr())` hand each value to the closure; the pointers it returns
//! point into that value's memory, and a vector collected from them holds pointers into
//! it. A closure that takes its value by move (`into_iter().map`, `Option::map`) drops
//! it when it returns, so every pointer it made dangles from then on.

use rustc_data_structures::fx::FxHashMap;
use rustc_middle::mir;
use rustc_middle::ty::Ty;

use tensor_lint_analyzer::ir::{
    Op, ReleaseKind, ReleasedBy, RootId, TyClass, ValueId, ValueKind, ViewOp,
};
use tensor_lint_analyzer::source::Span;

use super::calls::Arg;
use super::{types, BodyCx, FnLowerer};

#[derive(Default)]
pub(crate) struct Pointers {
    /// Iterators whose items are pointers into the memory of a value: the value.
    items: FxHashMap<ValueId, ValueId>,
    /// Buffers of pointers collected from such items: what the pointers point into.
    targets: FxHashMap<RootId, ValueId>,
}

/// What a closure makes of the value it is given.
struct Made {
    /// The closure takes the value by move and owns what it holds: it drops it.
    drops: bool,
    /// It returns a pointer into the value's memory.
    pointer: bool,
    /// It returns a buffer of pointers into the value's memory.
    pointers: bool,
}

impl<'tcx> FnLowerer<'_, 'tcx> {
    /// Whether `f` is a closure, not lowered yet, that returns a pointer or a buffer of
    /// them: only such a closure makes pointers into what it is given.
    fn returns_pointers(&self, f: &Arg<'tcx>) -> bool {
        let Some(ValueKind::Closure(body)) = f.value.map(|v| self.value(v).kind.clone()) else {
            return false;
        };
        self.pending_return_ty(body).is_some_and(|returned| {
            returned.is_raw_ptr()
                || types::element_of(self.tcx, returned).is_some_and(|e| e.is_raw_ptr())
        })
    }

    /// Lowers closure `f` run on `given` (a value of memory) and says what it makes of
    /// it, when it is a closure.
    fn closure_on(&mut self, f: &Arg<'tcx>, given: ValueId) -> Option<Made> {
        let Some(ValueKind::Closure(body)) = f.value.map(|v| self.value(v).kind.clone()) else {
            return None;
        };
        let def = self.pending_def(body)?;
        if !self.returns_pointers(f) {
            return None;
        }
        let closure_mir = self.tcx.optimized_mir(def.to_def_id());
        // The closure's own environment is local 1, its first parameter local 2.
        let param_ty = closure_mir
            .local_decls
            .get(mir::Local::from_usize(2))
            .map(|d| d.ty)?;
        // A value the closure owns and that needs dropping (a `Vec`, a `CString`) is
        // dropped where the closure returns.
        let drops = !param_ty.is_ref()
            && (types::owns_memory(self.tcx, param_ty) || param_ty.needs_drop(self.tcx, self.env));
        self.lower_pending_closure(body, &[Some(given)]);
        let root = self.value(given).kind.root()?;
        let mut made = Made {
            drops,
            pointer: false,
            pointers: false,
        };
        for c in self.returned_parts(body) {
            let Some(r) = self.value(c).kind.root() else {
                continue;
            };
            if r == root && matches!(self.value(c).kind, ValueKind::RawPtr(_)) {
                made.pointer = true;
            }
            let into = self.pointers.targets.get(&r).copied();
            if into.and_then(|t| self.value(t).kind.root()) == Some(root) {
                made.pointers = true;
            }
        }
        Some(made)
    }

    /// `it.map(f)` of an iterator over memory with a closure returning a pointer into
    /// each item: its items are pointers into that memory. A closure that takes each
    /// item by move drops it as it returns.
    pub(crate) fn mapped_pointers(
        &mut self,
        b: &BodyCx<'tcx>,
        iter: ValueId,
        f: &Arg<'tcx>,
        dst: ValueId,
        span: Span,
    ) {
        let Some(source) =
            self.through_copies(iter, |v| self.value(v).kind.is_memory().then_some(v))
        else {
            return;
        };
        if !self.returns_pointers(f) {
            return;
        }
        let class = self.value(source).ty;
        let item = self.new_value(None, ValueKind::Unknown, class, span);
        self.derive(b, item, source, ViewOp::Opaque("item".into()), None, span);
        let Some(made) = self.closure_on(f, item) else {
            return;
        };
        if made.pointer {
            self.pointers.items.insert(dst, source);
        }
        if made.drops && (made.pointer || made.pointers) {
            self.dropped_in_closure(b, source, span);
        }
    }

    /// `v.collect()` of pointers into the memory of a value: a new buffer (of the
    /// collection, in the `Ok` of a `Result`) whose pointers point into it.
    pub(crate) fn collected_pointers(
        &mut self,
        b: &BodyCx<'tcx>,
        iter: ValueId,
        dst: ValueId,
        dest_ty: Ty<'tcx>,
        span: Span,
    ) -> bool {
        let Some(&target) = self.pointers.items.get(&iter) else {
            return false;
        };
        let collected = self
            .payload(dest_ty)
            .map_or(dest_ty, |(_, payload)| payload);
        if !types::element_of(self.tcx, collected).is_some_and(|e| e.is_raw_ptr()) {
            return false;
        }
        let holder = self.held_allocation(b, dst, dest_ty, ReleasedBy::Drop, None, span);
        if let Some(root) = self.value(holder).kind.root() {
            self.pointers.targets.insert(root, target);
        }
        true
    }

    /// `opt.map(f)` (of an `Option` or a `Result`) with a closure that returns a pointer
    /// into the payload, or pointers into it: the result's payload is that pointer or a
    /// buffer of them. A closure that takes the payload by move drops it as it returns.
    pub(crate) fn mapped_payload(
        &mut self,
        b: &BodyCx<'tcx>,
        args: &[Arg<'tcx>],
        dst: ValueId,
        dest_ty: Ty<'tcx>,
        span: Span,
    ) -> bool {
        let (Some(opt), Some(f)) = (args.first(), args.get(1)) else {
            return false;
        };
        let Some(opt_value) = opt.value else {
            return false;
        };
        let Some((variant, payload_ty)) = self.payload(opt.ty) else {
            return false;
        };
        let Some(payload) = self.payload_memory(b, opt_value, variant, payload_ty, span) else {
            return false;
        };
        let Some(made) = self.closure_on(f, payload) else {
            return false;
        };
        if !(made.pointer || made.pointers) {
            return false;
        }
        if made.pointer {
            let (holder, _) = self.allocation_holder(dst, dest_ty, span);
            let view = self.value(payload).view.clone();
            self.derive(b, holder, payload, ViewOp::Opaque("map".into()), view, span);
        } else {
            let holder = self.held_allocation(b, dst, dest_ty, ReleasedBy::Drop, None, span);
            if let Some(root) = self.value(holder).kind.root() {
                self.pointers.targets.insert(root, payload);
            }
        }
        if made.drops {
            self.dropped_in_closure(b, payload, span);
        }
        true
    }

    /// `opt.map(f)` with an `f` this lowering does not follow as a closure making
    /// pointers (a constructor, `.map(Wrapper)`; a closure building a struct of the
    /// payload): the payload's memory is handed to it, which may keep it.
    pub(crate) fn payload_handed_on(&mut self, b: &BodyCx<'tcx>, args: &[Arg<'tcx>], span: Span) {
        let Some(opt) = args.first() else {
            return;
        };
        let Some(opt_value) = opt.value else {
            return;
        };
        let held = if self.value(opt_value).kind.is_memory() {
            Some(opt_value)
        } else {
            self.payload(opt.ty)
                .and_then(|(variant, _)| self.field_of(opt_value, variant, 0))
                .filter(|&v| self.value(v).kind.is_memory())
        };
        if let Some(v) = held {
            self.emit(
                b,
                Op::Escape {
                    value: v,
                    how: tensor_lint_analyzer::ir::EscapeKind::PassedOn("map".into()),
                },
                span,
            );
        }
    }

    /// The memory the payload of `opt` (in `variant`) holds: known already; of a
    /// parameter, the caller's memory; of a value this function made in a way not
    /// followed here (`Some(r?)` of a `collect`), memory of its own, held from here.
    /// Either is named after `opt`.
    fn payload_memory(
        &mut self,
        b: &BodyCx<'tcx>,
        opt: ValueId,
        variant: u32,
        payload_ty: Ty<'tcx>,
        span: Span,
    ) -> Option<ValueId> {
        let known = self.field_of(opt, variant, 0);
        if let Some(v) = known.filter(|&v| self.value(v).kind.is_memory()) {
            return Some(v);
        }
        let owns = types::owns_memory(self.tcx, payload_ty)
            || (!payload_ty.is_ref() && payload_ty.needs_drop(self.tcx, self.env));
        if !owns {
            return None;
        }
        let name = self.value(self.canonical(opt)).name.clone()?;
        let class = types::class_of(self.tcx, payload_ty);
        let payload = self.new_value(Some(name.clone()), ValueKind::Unknown, class, span);
        self.value_types.insert(payload, payload_ty);
        match self.param_index(opt) {
            Some(index) => {
                let elem = types::element_of(self.tcx, payload_ty).unwrap_or(payload_ty);
                let root = self.caller_root(&name, index, elem, span);
                self.value_mut(payload).kind = ValueKind::View(root);
            }
            None => self.new_allocation(b, payload, payload_ty, ReleasedBy::Drop, None, span),
        }
        self.set_field(opt, variant, 0, payload);
        Some(payload)
    }

    /// `value` moved into a closure that drops it when it returns.
    fn dropped_in_closure(&mut self, b: &BodyCx<'tcx>, value: ValueId, span: Span) {
        self.emit(
            b,
            Op::Release {
                value,
                how: ReleaseKind::ClosureEnd,
            },
            span,
        );
    }

    /// A foreign function given a buffer of pointers reads what they point to: a read,
    /// at the call, of the memory they point into, by the name of the argument.
    pub(crate) fn read_through_pointers(&mut self, b: &BodyCx<'tcx>, arg: ValueId, span: Span) {
        let Some(root) = self.value(arg).kind.root() else {
            return;
        };
        let Some(&target) = self.pointers.targets.get(&root) else {
            return;
        };
        let name = self.value(arg).name.clone();
        let through = self.new_value(name, ValueKind::Unknown, TyClass::RawPtr, span);
        self.derive(
            b,
            through,
            target,
            ViewOp::Opaque("pointers".into()),
            None,
            span,
        );
        self.emit(
            b,
            Op::Read {
                value: through,
                region: None,
            },
            span,
        );
    }
}
