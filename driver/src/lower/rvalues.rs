//! Assignments: what each MIR rvalue makes of its destination (a copy or move of
//! memory, a borrow, a cast, an aggregate, an integer the oracle can reason about), and
//! stores into memory.

use rustc_middle::mir::{self, AggregateKind, BinOp, CastKind, Rvalue, UnOp};
use rustc_middle::ty;

use tensor_lint_analyzer::ir::{
    Assumption, EscapeKind, Op, ReleasedBy, RootOrigin, TyClass, ValueId, ValueKind, ViewOp,
};
use tensor_lint_analyzer::oracle::{Cmp, Dim, Expr, View};
use tensor_lint_analyzer::source::Span;

use super::places::Loc;
use super::types;
use super::{BodyCx, FnLowerer};

impl<'tcx> FnLowerer<'_, 'tcx> {
    pub(crate) fn assign(
        &mut self,
        b: &mut BodyCx<'tcx>,
        place: &mir::Place<'tcx>,
        rvalue: &Rvalue<'tcx>,
        span: Span,
    ) {
        // `local = rvalue`: the value read is the local's before the assignment.
        if place.projection.is_empty() {
            let dst = self.assigned(b, place.local);
            self.replaced = Some(self.local(b, place.local));
            // One element of a buffer, read (`let &key = item`, `bounds[t]`): where.
            let element = match rvalue {
                Rvalue::Use(op, _) => {
                    op.place()
                        .filter(|p| !p.projection.is_empty())
                        .and_then(|p| match self.place(b, &p, span) {
                            Loc::Memory {
                                region: Some(view), ..
                            } if view.dims.is_empty() => Some(view),
                            _ => None,
                        })
                }
                _ => None,
            };
            self.define_from(b, dst, rvalue, span);
            // A copy of another variable, or of a capture, is that variable's value, known
            // or not; anything else nothing here computes may get a name.
            let copy = match rvalue {
                Rvalue::Use(op, _) => op.place().is_some_and(|p| {
                    p.projection.is_empty() || (b.id.0 != 0 && p.local.as_usize() == 1)
                }),
                _ => false,
            };
            b.current[place.local.as_usize()] = dst;
            if !copy {
                self.name_unknown_integer(b, place.local, element);
            }
            return;
        }
        match self.place(b, place, span) {
            Loc::Value(dst) => {
                self.define_from(b, dst, rvalue, span);
                // A field of the caller's object (`self.ptr = p` through `&mut self`):
                // what is stored there lives on with the object.
                let through_reference = place.projection.iter().any(|p| p == mir::PlaceElem::Deref);
                let holds = self.value(dst).ty.holds_memory() || self.value(dst).kind.is_memory();
                if through_reference && self.param_structs.contains_key(&dst) && holds {
                    self.emit(
                        b,
                        Op::Escape {
                            value: dst,
                            how: EscapeKind::Stored,
                        },
                        span,
                    );
                }
            }
            Loc::Memory { base, region } => {
                // A store: the memory is written, and an owner or pointer stored there is
                // kept by whoever owns that memory.
                let stored = self.rvalue_operand(b, rvalue, span);
                // `a[[i, j]] = v` through `IndexMut`: the write happens at `a[[i, j]]`
                // (the call's span is the index alone).
                let written = match self.indexed.get(&base) {
                    Some(&at) if span.contains(at) => Span { hi: at.hi, ..span },
                    _ => span,
                };
                self.emit(
                    b,
                    Op::Write {
                        value: base,
                        region,
                    },
                    written,
                );
                if let Some(src) = stored {
                    self.store_escape(b, src, span);
                }
            }
            Loc::Unknown => {
                if let Some(src) = self.rvalue_operand(b, rvalue, span) {
                    self.store_escape(b, src, span);
                }
            }
        }
    }

    /// An owner, or a pointer to memory this function allocated, stored where this
    /// function does not follow it: it is no longer this function's to release.
    fn store_escape(&mut self, b: &BodyCx<'tcx>, src: ValueId, span: Span) {
        if self.value(src).kind.is_memory() {
            self.emit(
                b,
                Op::Escape {
                    value: src,
                    how: EscapeKind::Stored,
                },
                span,
            );
        }
    }

    /// The one value an rvalue passes on whole (`move x`, `copy p`, `&x`), if any.
    fn rvalue_operand(
        &mut self,
        b: &BodyCx<'tcx>,
        rvalue: &Rvalue<'tcx>,
        span: Span,
    ) -> Option<ValueId> {
        match rvalue {
            Rvalue::Use(op, _) | Rvalue::Cast(_, op, _) => self.operand(b, op, span),
            Rvalue::CopyForDeref(place) => self.read_place(b, place, span),
            Rvalue::Ref(_, _, place) | Rvalue::RawPtr(_, place) | Rvalue::Reborrow(_, _, place) => {
                match self.place(b, place, span) {
                    Loc::Value(v) => Some(v),
                    Loc::Memory { base, .. } => Some(base),
                    Loc::Unknown => None,
                }
            }
            Rvalue::Aggregate(_, ops) => {
                for op in ops {
                    if let Some(v) = self.operand(b, op, span) {
                        self.store_escape(b, v, span);
                    }
                }
                None
            }
            // `*x = *x + *y` (a float's `*x += *y` is one statement): what the operands
            // read is read before the store, and the number stored passes on nothing.
            Rvalue::BinaryOp(_, operands) => {
                self.operand(b, &operands.0, span);
                self.operand(b, &operands.1, span);
                None
            }
            Rvalue::UnaryOp(_, op) | Rvalue::Repeat(op, _) => {
                self.operand(b, op, span);
                None
            }
            _ => None,
        }
    }

    /// `dst = rvalue` for a destination that is a value of this function.
    fn define_from(
        &mut self,
        b: &mut BodyCx<'tcx>,
        dst: ValueId,
        rvalue: &Rvalue<'tcx>,
        span: Span,
    ) {
        match rvalue {
            Rvalue::Use(op, _) => {
                if let Some(src) = self.operand(b, op, span) {
                    self.copy_value(b, dst, src, span);
                    if let Some(place) = op.place() {
                        self.note_owner_part(b, &place, dst, src, span);
                    }
                }
                // The compiler's copy of a captured variable, or of what a reference
                // variable points to, goes by the variable's name.
                if self.value(dst).name.is_none() {
                    if let Some(place) = op.place() {
                        let name = self.capture_name(b, &place).or_else(|| {
                            let whole = place.projection.iter().all(|p| p == mir::PlaceElem::Deref)
                                || self.newtype_pointer(b, &place);
                            whole
                                .then(|| self.value(self.local(b, place.local)).name.clone())
                                .flatten()
                        });
                        self.value_mut(dst).name = name;
                    }
                }
            }
            Rvalue::CopyForDeref(place) => {
                if let Some(src) = self.read_place(b, place, span) {
                    self.copy_value(b, dst, src, span);
                    // The compiler's copy of a variable to dereference it goes by the
                    // variable's name.
                    if self.value(dst).name.is_none() {
                        let name = self
                            .value(src)
                            .name
                            .clone()
                            .or_else(|| self.capture_name(b, place));
                        self.value_mut(dst).name = name;
                    }
                }
            }
            Rvalue::Ref(_, kind, place) => {
                self.borrow(b, dst, place, span);
                // `&mut *p` of a raw pointer: a unique reference to all it points at,
                // which the borrow checker never saw.
                let through_pointer = place.projection.last() == Some(&mir::PlaceElem::Deref)
                    && mir::PlaceRef {
                        local: place.local,
                        projection: &place.projection[..place.projection.len() - 1],
                    }
                    .ty(b.mir, self.tcx)
                    .ty
                    .is_raw_ptr();
                if through_pointer
                    && matches!(kind, mir::BorrowKind::Mut { .. })
                    && self.value(dst).kind.root().is_some()
                {
                    // Named as the pointer it is made of (`&mut *a` is `a`'s).
                    if self.value(dst).name.is_none()
                        && place.projection.len() == 1
                        && b.mir.var_debug_info.iter().any(|info| {
                            matches!(&info.value, mir::VarDebugInfoContents::Place(p)
                                if p.local == place.local && p.projection.is_empty())
                        })
                    {
                        let name = self.value(self.local(b, place.local)).name.clone();
                        self.value_mut(dst).name = name;
                    }
                    let region = self.value(dst).view.clone();
                    self.emit(b, Op::Claim { value: dst, region }, span);
                }
            }
            Rvalue::RawPtr(_, place) | Rvalue::Reborrow(_, _, place) => {
                self.borrow(b, dst, place, span)
            }
            Rvalue::Cast(kind, op, _) => {
                let Some(src) = self.operand(b, op, span) else {
                    return;
                };
                match kind {
                    CastKind::IntToInt => {
                        let int = self.int_of(src);
                        self.value_mut(dst).int = int;
                    }
                    _ => self.copy_value(b, dst, src, span),
                }
            }
            Rvalue::BinaryOp(op, operands) => {
                let (l, r) = &**operands;
                let l = self.operand(b, l, span);
                let r = self.operand(b, r, span);
                let (li, ri) = (
                    l.and_then(|v| self.int_of(v)),
                    r.and_then(|v| self.int_of(v)),
                );
                if let (Some(l), Some(r)) = (&li, &ri) {
                    if matches!(
                        op,
                        BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge
                    ) {
                        self.compared.push((l.clone(), r.clone()));
                        let cmp = match op {
                            BinOp::Eq => Cmp::Eq,
                            BinOp::Ne => Cmp::Ne,
                            BinOp::Lt => Cmp::Lt,
                            BinOp::Le => Cmp::Le,
                            BinOp::Gt => Cmp::Gt,
                            _ => Cmp::Ge,
                        };
                        let said = Assumption {
                            lhs: l.clone(),
                            cmp,
                            rhs: r.clone(),
                        };
                        self.conditions.insert(dst, said);
                    }
                }
                let int = match (li, ri) {
                    (Some(l), Some(r)) => int_binop(*op, &l, &r),
                    _ => None,
                };
                // `ptr.offset(n)` written as the MIR operator.
                if *op == BinOp::Offset {
                    if let (Some(p), Some(n)) = (l, r.and_then(|v| self.int_of(v))) {
                        let view = self.value(p).view.as_ref().map(|v| shifted(v, &n));
                        self.derive(b, dst, p, ViewOp::Offset(n), view, span);
                    }
                    return;
                }
                // Checked arithmetic gives `(result, overflowed)`.
                if matches!(
                    op,
                    BinOp::AddWithOverflow | BinOp::SubWithOverflow | BinOp::MulWithOverflow
                ) {
                    let result = self.new_value(None, ValueKind::Scalar, TyClass::Scalar, span);
                    self.value_mut(result).int = int;
                    self.set_field(dst, 0, 0, result);
                    return;
                }
                self.value_mut(dst).int = int;
            }
            Rvalue::UnaryOp(op, operand) => {
                let Some(src) = self.operand(b, operand, span) else {
                    return;
                };
                match op {
                    // The length of a slice reference.
                    UnOp::PtrMetadata => {
                        let len = self.length_of(src);
                        self.value_mut(dst).int = len;
                    }
                    UnOp::Neg => {
                        let int = self.int_of(src).map(|i| &Expr::int(0) - &i);
                        self.value_mut(dst).int = int;
                    }
                    UnOp::Not => {}
                }
            }
            Rvalue::Aggregate(kind, ops) => self.aggregate(b, dst, kind, &ops.raw, span),
            Rvalue::Discriminant(place) => {
                if let super::places::Loc::Value(e) = self.place(b, place, span) {
                    self.discriminants.insert(dst, e);
                }
            }
            Rvalue::Repeat(op, count) => {
                let _ = self.operand(b, op, span);
                let len = count
                    .try_to_target_usize(self.tcx)
                    .map(|n| Expr::int(n as i64));
                self.array_value(dst, len, span);
            }
            _ => {}
        }
    }

    /// `dst = place` that copies a pointer out of an owner whose `Drop` releases it
    /// (`self.0`, `let Tagged(ptr, _) = render`): the owner stays whole.
    fn note_owner_part(
        &mut self,
        b: &BodyCx<'tcx>,
        place: &mir::Place<'tcx>,
        dst: ValueId,
        src: ValueId,
        span: Span,
    ) {
        let [rest @ .., mir::PlaceElem::Field(_, field_ty)] = place.projection.as_slice() else {
            return;
        };
        if !types::is_pointer(self.tcx, *field_ty) {
            return;
        }
        let owner_place = mir::Place {
            local: place.local,
            projection: self.tcx.mk_place_elems(rest),
        };
        let owner_ty = owner_place.ty(b.mir, self.tcx).ty;
        if !self.drop_releases(owner_ty) {
            return;
        }
        if let super::places::Loc::Value(owner) = self.place(b, &owner_place, span) {
            self.owner_parts.insert(dst, (owner, src, dst));
        }
    }

    /// `dst = Owner(.., p, ..)`: a new owner whose `Drop` releases `p`, when `p` was
    /// copied out of another such owner that stays whole: two owners of one pointer.
    fn owner_rebuilt(
        &mut self,
        b: &BodyCx<'tcx>,
        dst: ValueId,
        built: ty::Ty<'tcx>,
        values: &[Option<ValueId>],
        span: Span,
    ) {
        let Some(adt) = built.ty_adt_def().filter(|_| self.drop_releases(built)) else {
            return;
        };
        let Some((owner, field, part)) = values
            .iter()
            .flatten()
            .find_map(|v| self.owner_parts.get(v).copied())
        else {
            return;
        };
        let Some(field_root) = self.value(field).kind.root() else {
            return;
        };
        let ty_name = self.tcx.item_name(adt.did()).to_string();
        // The owner as the message names it, standing for the memory its drop releases.
        let owner_name = self.value(self.canonical(owner)).name.clone();
        let source = self.new_value(
            owner_name,
            ValueKind::View(field_root),
            TyClass::Unknown,
            span,
        );
        let source_borrowed = matches!(
            self.roots[field_root.0 as usize].origin,
            RootOrigin::Param(i) if b.mir.local_decls[mir::Local::from_usize(i + 1)].ty.is_ref()
        );
        // The new owner's duty to release, as a block of its own.
        let root = self.new_root(
            &ty_name,
            RootOrigin::Alloc,
            self.tcx.types.u8,
            ReleasedBy::Drop,
            span,
        );
        let copy = self.new_value(None, ValueKind::Root(root), TyClass::Unknown, span);
        self.second_owners.insert(self.canonical(dst), copy);
        let part_span = self.value(part).span;
        self.owner_copies.push(tensor_lint_analyzer::ir::OwnerCopy {
            source,
            source_borrowed,
            copy,
            ty: ty_name,
            part,
            part_span,
            span,
        });
    }

    /// Whether `place` is the pointer of a pointer newtype (`p.0` of `struct
    /// SendPtr(*mut f32)`): the pointer the variable is, as the user reads it.
    fn newtype_pointer(&self, b: &BodyCx<'tcx>, place: &mir::Place<'tcx>) -> bool {
        let [rest @ .., mir::PlaceElem::Field(_, field_ty)] = place.projection.as_slice() else {
            return false;
        };
        if !field_ty.is_raw_ptr() || rest.iter().any(|p| *p != mir::PlaceElem::Deref) {
            return false;
        }
        let base = mir::PlaceRef {
            local: place.local,
            projection: rest,
        }
        .ty(b.mir, self.tcx)
        .ty;
        matches!(base.kind(), ty::Adt(adt, _)
            if adt.did().is_local() && adt.is_struct() && adt.all_fields().count() == 1)
    }

    /// `dst = src`: the same memory (a move or copy of an owner, pointer or view), the
    /// same integer.
    pub(crate) fn copy_value(&mut self, b: &BodyCx<'tcx>, dst: ValueId, src: ValueId, span: Span) {
        if dst == src {
            return;
        }
        // `p = ptr::null_mut()`: `p` holds no allocation now.
        if self.nulls.contains(&src) {
            self.store_null(b, dst, span);
            return;
        }
        let (kind, view, int) = {
            let s = self.value(src);
            (s.kind.clone(), s.view.clone(), s.int.clone())
        };
        let scalar = kind == ValueKind::Scalar;
        if let Some(&target) = self.pointees.get(&src) {
            self.pointees.insert(dst, target);
        }
        if let Some(&owner) = self.borrowed_owners.get(&src) {
            self.borrowed_owners.insert(dst, owner);
        }
        if let Some(range) = self.ranges.get(&src).cloned() {
            self.ranges.insert(dst, range);
        }
        // `Layout::array::<f32>(n).unwrap()`, copied into the `alloc` call.
        if let Some(layout) = self.layouts.get(&src).cloned() {
            self.layouts.insert(dst, layout);
        }
        if let Some(spec) = self.slice_elems.get(&src).cloned() {
            self.slice_elems.insert(dst, spec);
        }
        if let Some(specs) = self.slice_infos.get(&src).cloned() {
            self.slice_infos.insert(dst, specs);
        }
        if let Some(info) = self.iters.get(&src).cloned() {
            self.iters.insert(dst, info);
        }
        if let Some(&part) = self.owner_parts.get(&src) {
            self.owner_parts.insert(dst, part);
        }
        if let Some(len) = self.iter_lens.get(&src).cloned() {
            self.iter_lens.insert(dst, len);
        }
        if let Some(shape) = self.shapes.get(&src).cloned() {
            self.shapes.insert(dst, shape);
        }
        self.handles.copied(src, dst);
        if let Some(&index) = self.param_structs.get(&src) {
            self.param_structs.entry(dst).or_insert(index);
        }
        // A struct moved or copied whole is the same struct, fields and all.
        if matches!(kind, ValueKind::Unknown) && self.canonical(src) != dst {
            let src = self.canonical(src);
            self.aliases.insert(dst, src);
        }
        // Whether memory flows is decided by the types, not by what the source is known
        // to hold yet: blocks are lowered in an order where a value may be copied before
        // the block that defines it (the kinds are completed once the function is).
        let carries = kind.is_memory()
            || matches!(kind, ValueKind::Closure(_) | ValueKind::ScopeHandle)
            || (self.value(src).ty.holds_memory() && !scalar);
        if carries {
            self.emit(b, Op::Assign { dst, src }, span);
            let kind = match (kind, self.value(dst).ty) {
                (ValueKind::Root(r) | ValueKind::View(r), TyClass::RawPtr) => {
                    ValueKind::RawPtr(Some(r))
                }
                (kind, _) => kind,
            };
            self.define(dst, kind, view);
        }
        if int.is_some() {
            self.value_mut(dst).int = int;
        }
        // A copy of a flag or integer is the same value where it is tested.
        if scalar {
            let origin = self.scalar_origin(src);
            self.scalar_copies.insert(dst, origin);
        }
    }

    /// `dst` is a null pointer (`ptr::null_mut()`): stored into a variable, the variable
    /// holds no allocation on this path any more, whatever it held before.
    pub(crate) fn store_null(&mut self, b: &BodyCx<'tcx>, dst: ValueId, span: Span) {
        let before = self.replaced.take().filter(|&v| v != dst);
        match before {
            Some(previous) if self.value(dst).name.is_some() => {
                self.emit(b, Op::AssumeNull { value: previous }, span);
            }
            _ => {
                self.nulls.insert(dst);
            }
        }
    }

    /// The value a scalar temporary copies (`_8 = copy need_scratch`), followed back.
    pub(crate) fn scalar_origin(&self, mut v: ValueId) -> ValueId {
        for _ in 0..32 {
            match self.scalar_copies.get(&v) {
                Some(&from) if from != v => v = from,
                _ => break,
            }
        }
        v
    }

    /// `dst = &place` (or `&raw`, a reborrow): a view of the memory the place is in, or a
    /// reference to a whole value of this function.
    fn borrow(&mut self, b: &BodyCx<'tcx>, dst: ValueId, place: &mir::Place<'tcx>, span: Span) {
        // `&mut p` of a pointer variable points at the variable (through it, a callee
        // may store another pointer there), not at what `p` points to.
        let place_ty = place.ty(b.mir, self.tcx).ty;
        // `&mut stats.valid` of a struct this function holds: the bytes of that field,
        // where the compiler laid it out.
        if let Some((memory, view)) = self.field_bytes(b, place, span) {
            self.derive(
                b,
                dst,
                memory,
                ViewOp::Offset(view.offset.clone()),
                Some(view),
                span,
            );
            return;
        }
        let loc = self.place(b, place, span);
        // So does `&addr` of an address held as an integer, or a `NonNull`: the
        // variable is borrowed, not the memory it points to.
        let holds_pointer = |this: &Self, v: ValueId| {
            matches!(this.value(v).kind, ValueKind::RawPtr(_))
                || types::adt_is(this.tcx, place_ty, "core", "NonNull")
        };
        let pointer_slot = place_ty.is_any_ptr()
            || place_ty.is_ref()
            || matches!(loc, Loc::Value(v) if holds_pointer(self, v));
        match loc {
            Loc::Value(v) if pointer_slot => {
                self.pointees.insert(dst, v);
            }
            Loc::Value(v) => {
                if self.value(v).kind.is_memory() {
                    let view = self.value(v).view.clone();
                    self.derive(b, dst, v, ViewOp::Whole, view, span);
                    // `&mut x`, or `&mut *r` of a reference to `x`: a borrow of `x`.
                    if place.projection.is_empty()
                        || place.projection.as_slice() == [mir::PlaceElem::Deref]
                    {
                        self.borrowed_owners.insert(dst, v);
                    }
                } else {
                    self.pointees.insert(dst, v);
                    if let Some(&index) = self.param_structs.get(&v) {
                        self.param_structs.insert(dst, index);
                    }
                }
            }
            Loc::Memory { base, region } => {
                if self.value(dst).name.is_none() {
                    let name = self.place_name(b, place);
                    self.value_mut(dst).name = name;
                }
                let reborrow = place.projection.as_slice() == [mir::PlaceElem::Deref];
                // A reborrow of a borrowed owner (`&mut *r`) borrows the same owner.
                if let Some(&owner) = self.borrowed_owners.get(&base) {
                    if reborrow {
                        self.borrowed_owners.insert(dst, owner);
                    }
                }
                // `let out = &mut *tmp` of a call's result: the result is what the
                // variable names.
                if reborrow && self.value(base).name.is_none() {
                    let name = self.value(dst).name.clone();
                    self.value_mut(base).name = name;
                }
                let how = match &region {
                    Some(r) => ViewOp::Offset(r.offset.clone()),
                    None => ViewOp::Whole,
                };
                let view = region.or_else(|| self.value(base).view.clone());
                self.derive(b, dst, base, how, view, span);
            }
            Loc::Unknown => {}
        }
    }

    /// `dst = Aggregate(ops)`: a closure, a range, a struct or tuple whose fields hold
    /// what it was built from, an array.
    fn aggregate(
        &mut self,
        b: &mut BodyCx<'tcx>,
        dst: ValueId,
        kind: &AggregateKind<'tcx>,
        ops: &[mir::Operand<'tcx>],
        span: Span,
    ) {
        let values: Vec<Option<ValueId>> = ops.iter().map(|op| self.operand(b, op, span)).collect();
        match kind {
            AggregateKind::Closure(def_id, _) => {
                // A capture nothing is known of stays in its slot, so that upvar `k` is
                // still the `k`-th capture.
                let captures: Vec<ValueId> = values
                    .iter()
                    .map(|v| {
                        v.unwrap_or_else(|| {
                            self.new_value(None, ValueKind::Unknown, TyClass::Unknown, span)
                        })
                    })
                    .collect();
                if let Some(local) = def_id.as_local() {
                    let body = self.closure(b, local, captures, span);
                    self.define(dst, ValueKind::Closure(body), None);
                    self.closure_values.insert(*def_id, dst);
                }
            }
            AggregateKind::Adt(did, variant, generics, _, _) => {
                let tcx = self.tcx;
                let is_range = tcx.crate_name(did.krate).as_str() == "core"
                    && matches!(tcx.item_name(*did).as_str(), "Range" | "RangeInclusive");
                if is_range && values.len() == 2 {
                    let lo = values[0].and_then(|v| self.int_of(v));
                    let hi = values[1].and_then(|v| self.int_of(v));
                    if let (Some(lo), Some(mut hi)) = (lo, hi) {
                        if tcx.item_name(*did).as_str() == "RangeInclusive" {
                            hi = &hi + &Expr::int(1);
                        }
                        self.ranges.insert(dst, (lo, hi));
                    }
                }
                // Built with the flag its `Drop` tests set so that it frees nothing: it
                // holds no memory of this function's, and is no second owner.
                let frees_nothing = self.cx.release_flags.get(did).and_then(|flag| {
                    let value = ops.get(flag.field)?.constant()?.const_.try_to_bool()?;
                    (value != flag.frees_when).then(|| (flag.name.clone(), value))
                });
                for (k, v) in values.iter().enumerate() {
                    let Some(v) = v else { continue };
                    if let Some((flag, flag_value)) = &frees_nothing {
                        if let Some(root) = self.fresh_allocation(*v) {
                            self.unowned_builds
                                .push(tensor_lint_analyzer::ir::UnownedBuild {
                                    root,
                                    span,
                                    ty: tcx.item_name(*did).to_string(),
                                    flag: flag.clone(),
                                    flag_value: *flag_value,
                                });
                            continue;
                        }
                    }
                    self.set_field(dst, variant.as_u32(), k as u32, *v);
                }
                let built = ty::Ty::new_adt(self.tcx, self.tcx.adt_def(*did), generics);
                if frees_nothing.is_none() {
                    self.owner_rebuilt(b, dst, built, &values, span);
                }
            }
            AggregateKind::Tuple | AggregateKind::Array(_) => {
                for (k, v) in values.iter().enumerate() {
                    if let Some(v) = v {
                        self.set_field(dst, 0, k as u32, *v);
                    }
                }
                if matches!(kind, AggregateKind::Array(_)) {
                    self.array_value(dst, Some(Expr::int(values.len() as i64)), span);
                }
            }
            _ => {}
        }
    }

    /// The allocation `v` is, when this function made it and owes its release.
    fn fresh_allocation(&self, v: ValueId) -> Option<tensor_lint_analyzer::ir::RootId> {
        let kind = &self.value(v).kind;
        if !matches!(kind, ValueKind::Root(_) | ValueKind::RawPtr(_)) {
            return None;
        }
        let root = kind.root()?;
        let r = &self.roots[root.0 as usize];
        (r.origin == RootOrigin::Alloc && r.released_by != ReleasedBy::NotOwned).then_some(root)
    }

    /// An array literal held in `dst`: memory of its own, on the stack.
    fn array_value(&mut self, dst: ValueId, len: Option<Expr>, span: Span) {
        let Some(ty) = self.value_types.get(&dst).copied() else {
            return;
        };
        let ty::Array(elem, _) = ty.kind() else {
            return;
        };
        let name = self
            .value(dst)
            .name
            .clone()
            .unwrap_or_else(|| "array".into());
        let root = self.new_root(
            &name,
            tensor_lint_analyzer::ir::RootOrigin::Static,
            *elem,
            tensor_lint_analyzer::ir::ReleasedBy::NotOwned,
            span,
        );
        self.array_literals.insert(root, dst);
        let elem_bytes = self.roots[root.0 as usize].elem_bytes;
        let view = len.map(|len| {
            self.roots[root.0 as usize].shape = Some(vec![len.clone()]);
            View::contiguous(root, elem_bytes, vec![len])
        });
        self.define(dst, ValueKind::Root(root), view);
    }

    /// The number of elements `v` reaches, when its geometry says.
    pub(crate) fn length_of(&self, v: ValueId) -> Option<Expr> {
        // A slice whose place nothing here knows (one a method returns): its length is
        // one value, named after it, as the iterations over it count it.
        let Some(view) = self.value(v).view.as_ref() else {
            let value = self.value(v);
            let slice = matches!(value.ty, TyClass::Slice) && value.kind.is_memory();
            return slice
                .then(|| value.name.as_ref().map(|n| Expr::sym(&format!("{n}.len"))))
                .flatten();
        };
        let mut len = Expr::int(1);
        for d in &view.dims {
            len = &len * &d.len;
        }
        Some(len)
    }
}

/// The integer result of `l op r`, for the operators sizes and indices are made of.
fn int_binop(op: BinOp, l: &Expr, r: &Expr) -> Option<Expr> {
    Some(match op {
        BinOp::Add | BinOp::AddUnchecked | BinOp::AddWithOverflow => l + r,
        BinOp::Sub | BinOp::SubUnchecked | BinOp::SubWithOverflow => l - r,
        BinOp::Mul | BinOp::MulUnchecked | BinOp::MulWithOverflow => l * r,
        BinOp::Div => l.div_floor(r.clone()),
        BinOp::Rem => l.rem(r.clone()),
        BinOp::Shl | BinOp::ShlUnchecked => {
            let k = r.as_const().filter(|k| (0..62).contains(k))?;
            l * &Expr::int(1i64 << k)
        }
        BinOp::Shr | BinOp::ShrUnchecked => {
            let k = r.as_const().filter(|k| (0..62).contains(k))?;
            l.div_floor(Expr::int(1i64 << k))
        }
        BinOp::BitAnd => {
            // `x & (2^k - 1)` is `x % 2^k`, the mask on either side; `h & (n - 1)` is
            // the idiom for `h % n` with `n` a power of two.
            let mask = |e: &Expr| {
                e.as_const()
                    .filter(|m| *m > 0 && *m < i64::MAX && (m + 1) & m == 0)
            };
            match (mask(r), mask(l)) {
                (Some(m), _) => l.rem(Expr::int(m + 1)),
                (None, Some(m)) => r.rem(Expr::int(m + 1)),
                (None, None) if r.constant_term() == -1 && !r.is_const() => {
                    l.rem(r + &Expr::int(1))
                }
                (None, None) => return None,
            }
        }
        _ => return None,
    })
}

/// `view` moved `n` elements further.
pub(crate) fn shifted(view: &View, n: &Expr) -> View {
    View {
        root: view.root,
        elem_bytes: view.elem_bytes,
        offset: &view.offset + n,
        dims: view.dims.clone(),
    }
}

/// A view of `len` contiguous elements starting where `view` starts.
pub(crate) fn with_len(view: &View, len: Expr) -> View {
    View {
        root: view.root,
        elem_bytes: view.elem_bytes,
        offset: view.offset.clone(),
        dims: vec![Dim::new(len, 1)],
    }
}
