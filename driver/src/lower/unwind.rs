//! Unwinding: the calls and checks that may panic out of a function, with what their
//! unwinding path drops, and the bitwise copies (`ptr::read`) that give one value two
//! owners until one of them lets go.
//!
//! A call may unwind into this function's cleanup when it runs code the caller
//! supplies (a closure or a trait method called on a type parameter or a trait
//! object, which the compiler cannot resolve to an impl), when it panics by design
//! (`panic!`, `unwrap`, `expect`), or when it is an index the compiler checks. Calls the
//! compiler resolves to a library or crate function are not counted: they panic only
//! on bugs of their own or out of memory. A call whose unwinding is cut off (`nounwind`,
//! an abort) or runs the `Drop` of a guard (a type outside the standard library with a
//! `Drop` of its own, which may write a value back or abort) is not one either.

use rustc_middle::mir::{self, BasicBlock, Local, TerminatorKind, UnwindAction};
use rustc_middle::ty::{self, Instance, InstanceKind, Ty, TypeVisitableExt};
use rustc_span::Spanned;

use tensor_lint_analyzer::ir::{DuplicateKind, Op, RootOrigin, ValueId};
use tensor_lint_analyzer::models::{Role, Sem};
use tensor_lint_analyzer::source::Span;

use rustc_data_structures::fx::FxHashMap;

use super::{types, BodyCx, FnLowerer};

/// Library functions that panic by design on some input.
const PANICKING: &[&str] = &[
    "core::panicking::",
    "std::rt::begin_panic",
    "std::panicking::begin_panic",
    "std::option::Option::<T>::unwrap",
    "std::option::Option::<T>::expect",
    "std::result::Result::<T, E>::unwrap",
    "std::result::Result::<T, E>::expect",
];

/// How many MIR locals a chain of moves and aggregates is followed through.
const MAX_MOVE_CHAIN: usize = 8;

/// The first parameter: `self` of a method.
const SELF: Local = Local::from_u32(1);

impl<'tcx> FnLowerer<'_, 'tcx> {
    /// A call terminator that may unwind: its [`Op::MayUnwind`], before the call.
    pub(crate) fn may_unwind_at_call(
        &mut self,
        b: &BodyCx<'tcx>,
        func: &mir::Operand<'tcx>,
        args: &[Spanned<mir::Operand<'tcx>>],
        unwind: UnwindAction,
        span: Span,
    ) {
        if !self.makes_duplicates(b) {
            return;
        }
        let Some(cause) = self.unwind_cause(b, func, args) else {
            return;
        };
        let moved: Vec<Local> = args
            .iter()
            .filter_map(|a| match &a.node {
                mir::Operand::Move(place) if place.projection.is_empty() => Some(place.local),
                _ => None,
            })
            .collect();
        self.emit_may_unwind(b, unwind, &moved, cause, span);
    }

    /// An `Assert` terminator: an index the compiler checks may panic.
    pub(crate) fn may_unwind_at_assert(
        &mut self,
        b: &mut BodyCx<'tcx>,
        msg: &mir::AssertMessage<'tcx>,
        unwind: UnwindAction,
        span: Span,
    ) {
        let mir::AssertKind::BoundsCheck { len, index } = msg else {
            return;
        };
        if !self.makes_duplicates(b) {
            return;
        }
        // A constant index into an array of a constant length passes its check.
        if let (Some(i), Some(n)) = (self.constant_usize(b, index), self.constant_usize(b, len)) {
            if i < n {
                return;
            }
        }
        // An index checked once against the same length is not checked again with
        // another outcome (`&mut a[i]` after `&a[i]`).
        let key = (self.operand_key(b, index), self.operand_key(b, len));
        if !b.checked_indices.insert(key) {
            return;
        }
        self.emit_may_unwind(b, unwind, &[], "this index".to_string(), span);
    }

    fn emit_may_unwind(
        &mut self,
        b: &BodyCx<'tcx>,
        unwind: UnwindAction,
        moved: &[Local],
        cause: String,
        span: Span,
    ) {
        let mut dropped: Vec<Local> = Vec::new();
        for &local in moved {
            self.moved_parts(b, local, &mut dropped, 0);
        }
        match unwind {
            UnwindAction::Continue => {}
            UnwindAction::Cleanup(start) => match self.cleanup_drops(b.mir, start) {
                Some(locals) => dropped.extend(locals),
                None => return,
            },
            UnwindAction::Unreachable | UnwindAction::Terminate(_) => return,
        }
        let mut drops: Vec<ValueId> = dropped.iter().map(|&l| self.local(b, l)).collect();
        drops.sort_unstable();
        drops.dedup();
        self.emit(b, Op::MayUnwind { drops, cause }, span);
    }

    /// What may panic in a call, or `None` for a call counted as not unwinding.
    fn unwind_cause(
        &self,
        b: &BodyCx<'tcx>,
        func: &mir::Operand<'tcx>,
        args: &[Spanned<mir::Operand<'tcx>>],
    ) -> Option<String> {
        let tcx = self.tcx;
        let Some((def_id, generic_args)) = func.const_fn_def() else {
            return Some("a function pointer".to_string());
        };
        // An `unsafe fn` may require of its caller that what the caller supplies does
        // not panic (`/// f must not panic`): that code is the caller's to vouch for.
        let caller_vouches = tcx
            .fn_sig(self.def.to_def_id())
            .skip_binder()
            .safety()
            .is_unsafe();
        if let Some(trait_id) = tcx.trait_of_assoc(def_id) {
            let instance = Instance::try_resolve(tcx, self.env, def_id, generic_args).ok()?;
            let supplied = match instance {
                None => true,
                Some(i) => matches!(i.def, InstanceKind::Virtual(..)),
            };
            if !supplied || caller_vouches {
                return None;
            }
            let fn_trait = tcx.fn_trait_kind_from_def_id(trait_id).is_some();
            let receiver = args.first().and_then(|a| match &a.node {
                mir::Operand::Move(p) | mir::Operand::Copy(p) => Some(p.local),
                mir::Operand::Constant(_) | mir::Operand::RuntimeChecks(_) => None,
            });
            let named = receiver
                .map(|l| self.moved_from(b, l))
                .map(|l| match assignment_of(b, l) {
                    Some(mir::Rvalue::Ref(_, _, p)) if p.projection.is_empty() => p.local,
                    _ => l,
                })
                .map(|l| self.local(b, l))
                .and_then(|v| self.value(v).name.clone());
            return Some(match (fn_trait, named) {
                (true, Some(name)) => format!("`{name}`"),
                _ => format!(
                    "`{}::{}`",
                    generic_args.type_at(0).peel_refs(),
                    tcx.item_name(def_id)
                ),
            });
        }
        // (A path is made only for the standard library's few candidates: making one
        // for every call costs more than the rest of this.)
        let std_lib = matches!(
            tcx.crate_name(def_id.krate).as_str(),
            "core" | "std" | "alloc"
        );
        let name = tcx.item_name(def_id);
        let candidate = std_lib
            && (matches!(name.as_str(), "unwrap" | "expect")
                || tcx
                    .opt_parent(def_id)
                    .and_then(|m| tcx.opt_item_name(m))
                    .is_some_and(|m| matches!(m.as_str(), "panicking" | "rt")));
        if candidate {
            let path = tcx.def_path_str(def_id);
            if PANICKING.iter().any(|p| path.starts_with(p)) {
                return Some(format!("`{name}`"));
            }
        }
        // A library function that runs a closure or an iterator the caller gave
        // (`iter.enumerate()`'s `next`, `v.extend(iter)`, `slice.sort_by(f)`). A
        // function of the crate may guard what it runs (and write back on unwinding).
        if def_id.is_local() || caller_vouches {
            return None;
        }
        let runs = b.code_params.get_or_init(|| self.code_params());
        if runs.is_empty() {
            return None;
        }
        let runs_given = |t: Ty<'tcx>| {
            t.walk()
                .filter_map(|g| g.as_type())
                .find_map(|t| match t.kind() {
                    ty::Param(p) => runs.iter().find(|(i, _)| *i == p.index).map(|(_, w)| *w),
                    _ => None,
                })
        };
        generic_args
            .iter()
            .filter_map(|a| a.as_type())
            .find_map(runs_given)
            .map(|what| what.to_string())
    }

    /// The type parameters of this function bounded by a trait whose methods run the
    /// caller's code (`F: FnMut(T)`, `I: Iterator`), with how a message names them.
    fn code_params(&self) -> Vec<(u32, &'static str)> {
        let tcx = self.tcx;
        let mut out = Vec::new();
        for clause in self.env.param_env.caller_bounds() {
            let Some(bound) = clause.as_trait_clause() else {
                continue;
            };
            let bound = bound.skip_binder();
            let trait_id = bound.def_id();
            let what = if tcx.fn_trait_kind_from_def_id(trait_id).is_some() {
                "the caller's closure"
            } else if tcx.is_diagnostic_item(rustc_span::sym::Iterator, trait_id)
                || tcx.is_diagnostic_item(rustc_span::sym::IntoIterator, trait_id)
            {
                "the caller's iterator"
            } else {
                continue;
            };
            if let ty::Param(p) = bound.self_ty().kind() {
                out.push((p.index, what));
            }
        }
        out
    }

    /// The locals the cleanup from `start` drops, or `None` when it runs a guard.
    fn cleanup_drops(&self, mir: &mir::Body<'tcx>, start: BasicBlock) -> Option<Vec<Local>> {
        let mut seen = rustc_data_structures::fx::FxHashSet::default();
        let mut work = vec![start];
        let mut out = Vec::new();
        while let Some(bb) = work.pop() {
            if !seen.insert(bb) {
                continue;
            }
            let data = &mir.basic_blocks[bb];
            let Some(term) = &data.terminator else {
                continue;
            };
            if let TerminatorKind::Drop { place, .. } = &term.kind {
                if self.is_guard(place.ty(mir, self.tcx).ty) {
                    return None;
                }
                out.push(place.local);
            }
            work.extend(
                term.successors()
                    .filter(|s| mir.basic_blocks[*s].is_cleanup),
            );
        }
        Some(out)
    }

    /// A value whose `Drop` is its own code outside the standard library: a guard that
    /// may put back what a panic left half done.
    fn is_guard(&self, ty: Ty<'tcx>) -> bool {
        let ty::Adt(adt, _) = ty.kind() else {
            return false;
        };
        let Some(dtor) = self.tcx.adt_destructor(adt.did()) else {
            return false;
        };
        let krate = self.tcx.crate_name(dtor.did.krate);
        !matches!(krate.as_str(), "std" | "core" | "alloc")
    }

    /// `local` with what it was moved from or built of (`_8 = move _3; _7 = (move _8,)`):
    /// the locals whose values a call given `local` receives.
    fn moved_parts(&self, b: &BodyCx<'tcx>, local: Local, out: &mut Vec<Local>, depth: usize) {
        out.push(local);
        if depth >= MAX_MOVE_CHAIN {
            return;
        }
        let Some(rvalue) = assignment_of(b, local) else {
            return;
        };
        let parts: Vec<Local> = match rvalue {
            mir::Rvalue::Use(mir::Operand::Move(p), _) if p.projection.is_empty() => vec![p.local],
            mir::Rvalue::Aggregate(_, ops) => ops
                .iter()
                .filter_map(|o| match o {
                    mir::Operand::Move(p) if p.projection.is_empty() => Some(p.local),
                    _ => None,
                })
                .collect(),
            _ => Vec::new(),
        };
        for part in parts {
            self.moved_parts(b, part, out, depth + 1);
        }
    }

    /// The local `local` was moved or copied from, through temporaries and the
    /// reborrows of what they point at (`&mut *f`, `&raw const *a`).
    fn moved_from(&self, b: &BodyCx<'tcx>, local: Local) -> Local {
        self.chase(b, local, true)
    }

    /// `local` followed back through moves and copies, and through reborrows when
    /// `reborrows` is set.
    fn chase(&self, b: &BodyCx<'tcx>, mut local: Local, reborrows: bool) -> Local {
        for _ in 0..MAX_MOVE_CHAIN {
            match assignment_of(b, local) {
                Some(mir::Rvalue::Use(mir::Operand::Move(p) | mir::Operand::Copy(p), _))
                    if p.projection.is_empty() =>
                {
                    local = p.local;
                }
                Some(mir::Rvalue::Ref(_, _, p) | mir::Rvalue::RawPtr(_, p))
                    if reborrows
                        && matches!(p.projection.as_slice(), [mir::ProjectionElem::Deref]) =>
                {
                    local = p.local;
                }
                _ => break,
            }
        }
        local
    }

    /// What identifies an operand of a check: its value, or its constant.
    /// Whether an operand is a sum with a positive constant (`self.len + 1`, through
    /// the overflow check of a debug build): a new length longer than the old.
    fn adds_to(&self, b: &BodyCx<'tcx>, op: &mir::Operand<'tcx>) -> bool {
        let Some(place) = op.place() else {
            return false;
        };
        let mut local = self.moved_from(b, place.local);
        // `_8 = move (_10.0)` of `_10 = AddWithOverflow(..)`.
        if place.projection.is_empty() {
            if let Some(mir::Rvalue::Use(mir::Operand::Move(p) | mir::Operand::Copy(p), _)) =
                assignment_of(b, local)
            {
                if matches!(p.projection.as_slice(), [mir::ProjectionElem::Field(f, _)] if f.as_usize() == 0)
                {
                    local = self.moved_from(b, p.local);
                }
            }
        } else if !matches!(place.projection.as_slice(), [mir::ProjectionElem::Field(f, _)] if f.as_usize() == 0)
        {
            return false;
        }
        match assignment_of(b, local) {
            Some(mir::Rvalue::BinaryOp(mir::BinOp::Add | mir::BinOp::AddWithOverflow, pair)) => {
                let positive =
                    |o: &mir::Operand<'tcx>| self.constant_usize(b, o).is_some_and(|k| k > 0);
                (positive(&pair.1) && self.constant_usize(b, &pair.0).is_none())
                    || (positive(&pair.0) && self.constant_usize(b, &pair.1).is_none())
            }
            _ => false,
        }
    }

    /// The value of an operand that is a constant, or a local assigned one constant.
    fn constant_usize(&self, b: &BodyCx<'tcx>, op: &mir::Operand<'tcx>) -> Option<u64> {
        let constant = match op {
            mir::Operand::Constant(c) => Some(&**c),
            mir::Operand::Move(p) | mir::Operand::Copy(p) if p.projection.is_empty() => {
                match assignment_of(b, self.moved_from(b, p.local)) {
                    Some(mir::Rvalue::Use(mir::Operand::Constant(c), _)) => Some(&**c),
                    _ => None,
                }
            }
            _ => None,
        }?;
        constant.const_.try_eval_target_usize(self.tcx, self.env)
    }

    fn operand_key(&self, b: &BodyCx<'tcx>, op: &mir::Operand<'tcx>) -> String {
        match op {
            mir::Operand::Move(p) | mir::Operand::Copy(p) => {
                let local = self.moved_from(b, p.local);
                // A length is read from the slice it is the length of.
                match assignment_of(b, local) {
                    Some(mir::Rvalue::UnaryOp(mir::UnOp::PtrMetadata, o)) => {
                        format!("len {}", self.operand_key(b, o))
                    }
                    _ => format!("{:?}", self.local(b, local)),
                }
            }
            mir::Operand::Constant(c) => format!("{c:?}"),
            mir::Operand::RuntimeChecks(_) => String::new(),
        }
    }

    /// After a call to `ptr::read` (or `p.read()`) of a value with something to drop,
    /// from memory an owner will drop: the [`Op::Duplicate`] it makes; after a
    /// `ptr::copy` of such values within one owner's memory, the same in memory. After
    /// a `ptr::write` to such memory: the write, on the owner the pointer came from.
    pub(crate) fn duplicates_at_call(
        &mut self,
        b: &BodyCx<'tcx>,
        func: &mir::Operand<'tcx>,
        args: &[Spanned<mir::Operand<'tcx>>],
        destination: &mir::Place<'tcx>,
        unwind: UnwindAction,
        span: Span,
    ) {
        let tcx = self.tcx;
        let Some((def_id, _)) = func.const_fn_def() else {
            return;
        };
        if self.in_borrowing_guard(b) {
            return;
        }
        let pointer = |k: usize| match args.get(k).map(|a| &a.node) {
            Some(mir::Operand::Move(p) | mir::Operand::Copy(p)) if p.projection.is_empty() => {
                Some(p.local)
            }
            _ => None,
        };
        let callee = def_id
            .as_local()
            .and_then(|l| self.cx.fn_ids.get(&l).copied());
        if let Some(id) = callee {
            let Some(summary) = self.computed_summary(id) else {
                return;
            };
            // A function of the crate that sets the length of what it is given a
            // reference into (`self.header_mut().set_len(n)`): the length of `self`.
            // (The arguments themselves are set where the summary is applied.)
            let sets_self = summary
                .sets_len
                .iter()
                .any(|&k| pointer(k).is_some_and(|p| p != SELF && self.reaches_self(b, p)));
            if sets_self {
                let value = self.local(b, SELF);
                let grows = args.iter().any(|a| self.adds_to(b, &a.node));
                self.emit(b, Op::SetLen { value, grows }, span);
            }
            // Values the callee copied within an argument's memory (`force_copy(from,
            // to, n, self)`): both places hold them, as after a `ptr::copy` here.
            for &k in &summary.copies_within {
                // Values with nothing to drop (`u64` hashes) are not duplicated owners.
                let dropless = args
                    .get(k)
                    .and_then(|a| types::element_of(tcx, a.node.ty(b.mir, tcx)))
                    .is_some_and(|t| !t.needs_drop(tcx, self.env));
                if dropless {
                    continue;
                }
                if let Some(owner) = pointer(k).and_then(|p| self.owner_value(b, p)) {
                    self.emit(
                        b,
                        Op::Duplicate {
                            dst: owner,
                            src: owner,
                            region: None,
                            how: DuplicateKind::Copied,
                        },
                        span,
                    );
                }
            }
            return;
        }
        match self.cx.models.role(tcx, def_id) {
            // `mem::replace(place, placeholder)`: a placeholder never initialised is a
            // value only in name until the place is written again.
            Some(Role::Replace) => {
                self.replaced_with(b, pointer(0), &args[1].node, span);
                return;
            }
            Some(Role::DropInPlace) => {
                if let Some(p) = pointer(0) {
                    self.dropped_in_place(b, p, unwind, span);
                }
                return;
            }
            Some(Role::Copy { from, to }) => {
                self.copy_in_memory(b, pointer(from.into()), pointer(to.into()), span);
                return;
            }
            _ => {}
        }
        let Some(model) = self.cx.models.of(tcx, def_id) else {
            return;
        };
        match model.sem {
            Sem::PtrRead => {
                let Some(p) = pointer(0) else { return };
                let ty = destination.ty(b.mir, tcx).ty;
                if !destination.projection.is_empty() || !ty.needs_drop(tcx, self.env) {
                    return;
                }
                let Some(owner) = self.owned_slot(b, p) else {
                    return;
                };
                let region = self.value(self.local(b, p)).view.clone();
                let dst = self.local(b, destination.local);
                self.emit(
                    b,
                    Op::Duplicate {
                        dst,
                        src: owner,
                        region,
                        how: DuplicateKind::Read,
                    },
                    span,
                );
            }
            Sem::PtrWrite => {
                let Some(p) = pointer(0) else { return };
                let p_value = self.local(b, p);
                let Some(owner) = self.owned_slot(b, p) else {
                    return;
                };
                if owner != p_value && self.value(p_value).kind.root().is_none() {
                    let region = self.value(p_value).view.clone();
                    let pointer_ty = b.mir.local_decls[p].ty;
                    let store = self.store_through(pointer_ty, owner, region);
                    self.emit(b, store, span);
                }
            }
            _ => {}
        }
    }

    /// `self.len = n` (an integer field of what the first parameter points at, at any
    /// depth, or an integer reached through a reference into it): like
    /// `Vec::set_len`, the code says from here which slots it owns.
    pub(crate) fn count_field_set(
        &mut self,
        b: &BodyCx<'tcx>,
        place: &mir::Place<'tcx>,
        span: Span,
    ) {
        let counts = matches!(place.projection.first(), Some(mir::ProjectionElem::Deref))
            && place.projection.iter().all(|e| {
                matches!(
                    e,
                    mir::ProjectionElem::Deref | mir::ProjectionElem::Field(..)
                )
            })
            && place.ty(b.mir, self.tcx).ty.is_integral()
            && !self.self_keeps_an_owner(b)
            // `self.len = n`, or `*len = n` through a reference into `self`, in a method
            // (a free function's first parameter, or a closure's captures, are no
            // container whose length this is: `*bits.add(i) |= m` counts nothing).
            && self.has_self_receiver(b)
            && self.reaches_self(b, place.local);
        if counts {
            let value = self.local(b, SELF);
            self.emit(
                b,
                Op::SetLen {
                    value,
                    grows: false,
                },
                span,
            );
        }
    }

    /// Whether the type `self` points at holds a library owner of memory (a `Vec`, a
    /// `Box`): its slots are counted by that owner, and an integer field of `self`
    /// (`num_cols`) counts something else.
    fn self_keeps_an_owner(&self, b: &BodyCx<'tcx>) -> bool {
        let tcx = self.tcx;
        self_adt(b).is_some_and(|(adt, args)| {
            adt.all_fields()
                .any(|f| super::types::owns_memory(tcx, f.ty(tcx, args).skip_normalization()))
        })
    }

    /// `ptr::drop_in_place(p)` of values of a type parameter, in memory an owner
    /// drops: their `Drop` is the caller's code and may panic, after which the owner
    /// drops them again unless it was told first (its length set) that they are gone.
    fn dropped_in_place(
        &mut self,
        b: &BodyCx<'tcx>,
        pointer: Local,
        unwind: UnwindAction,
        span: Span,
    ) {
        let tcx = self.tcx;
        let Some(pointee) = b.mir.local_decls[pointer].ty.builtin_deref(true) else {
            return;
        };
        let elem = match pointee.kind() {
            ty::Slice(e) | ty::Array(e, _) => *e,
            _ => pointee,
        };
        if !elem.has_param() || !elem.needs_drop(tcx, self.env) {
            return;
        }
        // A panic in `Drop::drop` does not drop `self` again (only fields with drop
        // glue of their own, which this does not follow).
        if self.in_drop_impl() {
            return;
        }
        // In a container's own method, the container is the owner (its length fields
        // say which slots it counts), also of slots in a `MaybeUninit` its `Drop` drops.
        let slot = self.owned_slot(b, pointer);
        let owner = if !self.reaches_self(b, pointer) {
            slot
        } else if slot.is_some() || self.is_self_with_drop(b, SELF) {
            Some(self.local(b, SELF))
        } else {
            None
        };
        let Some(owner) = owner else {
            return;
        };
        let region = self.value(self.local(b, pointer)).view.clone();
        self.emit(
            b,
            Op::Duplicate {
                dst: owner,
                src: owner,
                region,
                how: DuplicateKind::Dropped,
            },
            span,
        );
        self.emit_may_unwind(b, unwind, &[], format!("the `Drop` of `{elem}`"), span);
    }

    /// `ptr::copy(from, to, n)` of values with something to drop within the memory of
    /// one owner: both places hold them until the code says which one owns them.
    fn copy_in_memory(
        &mut self,
        b: &BodyCx<'tcx>,
        from: Option<Local>,
        to: Option<Local>,
        span: Span,
    ) {
        let tcx = self.tcx;
        let (Some(from), Some(to)) = (from, to) else {
            return;
        };
        let elem = b.mir.local_decls[from].ty.builtin_deref(true);
        if !elem.is_some_and(|t| t.needs_drop(tcx, self.env)) {
            return;
        }
        let (src, dst) = (self.local(b, from), self.local(b, to));
        let root = self.value(src).kind.root();
        let (src, dst) = if root.is_some() {
            // Within one block of memory.
            if root != self.value(dst).kind.root() || self.owned_slot(b, from).is_none() {
                return;
            }
            (src, dst)
        } else {
            // Pointers into what one owner holds (`chunk.ptr(i)`, `chunk.mut_ptr(j)`).
            let owner = self.owned_source(b, from, 0);
            if owner.is_none() || owner != self.owned_source(b, to, 0) {
                return;
            }
            let Some(owner) = owner else { return };
            let owner = self.local(b, owner);
            (owner, owner)
        };
        let region = self.value(src).view.clone();
        self.emit(
            b,
            Op::Duplicate {
                dst,
                src,
                region,
                how: DuplicateKind::Copied,
            },
            span,
        );
    }

    /// The value that owns the memory pointer `local` points at, when an owner will
    /// drop what is stored there: a reference's referent (the caller's), a variable of
    /// this function, memory of a parameter or of an allocation that holds values.
    /// `None` for memory nothing here says is owned (a raw pointer handed in, memory
    /// not initialised yet, a static).
    fn owned_slot(&self, b: &BodyCx<'tcx>, local: Local) -> Option<ValueId> {
        let value = self.local(b, local);
        if self.value(value).kind.root().is_some() {
            return self.owned_memory(b, value).then_some(value);
        }
        let owner = self.owned_source(b, local, 0)?;
        Some(self.local(b, owner))
    }

    /// The local owning what `place` holds, when an owner drops it: a variable of this
    /// function, or the referent of a reference the caller gave, or of one a call
    /// returned from such a place (by the signature's lifetimes, into what it
    /// borrowed). Memory in a `ManuallyDrop` or a union (`MaybeUninit`) is dropped by
    /// nobody, except in a method of a type whose own `Drop` drops what `self` holds.
    fn owned_place(
        &self,
        b: &BodyCx<'tcx>,
        place: &mir::Place<'tcx>,
        depth: usize,
    ) -> Option<Local> {
        let tcx = self.tcx;
        let mir = b.mir;
        let holds_no_drop = |ty: Ty<'tcx>| {
            ty.is_union() || ty.ty_adt_def().is_some_and(|adt| adt.is_manually_drop())
        };
        let through_ref = matches!(place.projection.first(), Some(mir::ProjectionElem::Deref));
        let no_drop = place
            .iter_projections()
            .any(|(base, _)| holds_no_drop(base.ty(mir, tcx).ty))
            || holds_no_drop(place.ty(mir, tcx).ty);
        if no_drop && !(through_ref && self.is_self_with_drop(b, place.local)) {
            return None;
        }
        let base = place.local;
        let base_ty = mir.local_decls[base].ty;
        if base_ty.is_raw_ptr() {
            return None;
        }
        if !through_ref && !base_ty.is_ref() && base_ty.needs_drop(tcx, self.env) {
            return Some(base);
        }
        self.owned_source(b, base, depth + 1)
    }

    /// Whether the body is a method's, with a `self` parameter.
    fn has_self_receiver(&self, b: &BodyCx<'tcx>) -> bool {
        let def = b.mir.source.def_id();
        self.tcx.def_kind(def) == rustc_hir::def::DefKind::AssocFn
            && self.tcx.associated_item(def).is_method()
    }

    /// Whether pointer `local` reaches into what the first parameter (`self`) holds.
    fn reaches_self(&self, b: &BodyCx<'tcx>, local: Local) -> bool {
        let in_self = |l: Local| l == SELF || self.root_origin(b, l) == Some(RootOrigin::Param(0));
        b.mir.arg_count >= 1
            && (in_self(local) || self.owned_source(b, local, 0).is_some_and(in_self))
    }

    /// The owner of what pointer `local` reaches, as the IR names it: `self` for memory
    /// of the first parameter (so that its length fields and its memory are one
    /// owner), else the slot's owner ([`Self::owned_slot`]).
    fn owner_value(&self, b: &BodyCx<'tcx>, local: Local) -> Option<ValueId> {
        if self.reaches_self(b, local) {
            Some(self.local(b, SELF))
        } else {
            self.owned_slot(b, local)
        }
    }

    /// `mem::replace(dest, value)`: when `value` is (or wraps, as `Err(x)`) a value made
    /// by `mem::uninitialized` or `mem::zeroed` of a type with something to drop, the
    /// memory `dest` points into holds a placeholder that is no value
    /// ([`DuplicateKind::Uninit`]); any other value writes the place again.
    fn replaced_with(
        &mut self,
        b: &BodyCx<'tcx>,
        dest: Option<Local>,
        value: &mir::Operand<'tcx>,
        span: Span,
    ) {
        let Some(owner) = dest.and_then(|d| self.owner_value(b, d)) else {
            return;
        };
        let placeholder = value
            .place()
            .filter(|p| p.projection.is_empty())
            .is_some_and(|p| self.never_initialised(b, p.local, 0));
        let op = if placeholder {
            Op::Duplicate {
                dst: owner,
                src: owner,
                region: None,
                how: DuplicateKind::Uninit,
            }
        } else {
            Op::Write {
                value: owner,
                region: None,
            }
        };
        self.emit(b, op, span);
    }

    /// Whether `local` holds a value of a type with drop glue made by
    /// `mem::uninitialized` or `mem::zeroed`, or an enum or struct built around one.
    fn never_initialised(&self, b: &BodyCx<'tcx>, local: Local, depth: u32) -> bool {
        if depth > 3 {
            return false;
        }
        let local = self.moved_from(b, local);
        if let Some(mir::Rvalue::Aggregate(_, ops)) = assignment_of(b, local) {
            return ops.iter().any(|op| {
                op.place()
                    .filter(|p| p.projection.is_empty())
                    .is_some_and(|p| self.never_initialised(b, p.local, depth + 1))
            });
        }
        let ty = b.mir.local_decls[local].ty;
        let made_uninit = b
            .definitions()
            .callees
            .get(&local)
            .into_iter()
            .flatten()
            .any(|&d| self.cx.models.is(self.tcx, d, Role::Uninit));
        made_uninit && ty.needs_drop(self.tcx, self.env)
    }

    /// Where the memory pointer `local` points at comes from, when it has a root.
    fn root_origin(&self, b: &BodyCx<'tcx>, local: Local) -> Option<RootOrigin> {
        let root = self.value(self.local(b, local)).kind.root()?;
        Some(self.roots[root.0 as usize].origin.clone())
    }

    /// Whether this function is a `Drop::drop`, or a function nested in one: a panic
    /// there does not drop `self` again (only fields with drop glue of their own).
    fn in_drop_impl(&self) -> bool {
        let tcx = self.tcx;
        let is_drop = |def: rustc_hir::def_id::DefId| {
            tcx.trait_impl_of_assoc(def)
                .and_then(|imp| tcx.impl_opt_trait_id(imp))
                .is_some_and(|t| tcx.is_lang_item(t, rustc_attr_ir::LangItem::Drop))
        };
        let mut def = Some(self.def.to_def_id());
        while let Some(d) = def {
            if is_drop(d) {
                return true;
            }
            def = tcx.opt_parent(d).filter(|p| p.is_local());
        }
        false
    }

    /// Whether `local` is the `self` of a method of a type with a `Drop` of the crate
    /// (outside that `Drop`).
    fn is_self_with_drop(&self, b: &BodyCx<'tcx>, local: Local) -> bool {
        local == SELF
            && !self.in_drop_impl()
            && self_adt(b).is_some_and(|(adt, _)| self.has_own_drop(adt))
    }

    /// The local owning what `local` (a pointer, a reference, or a value borrowing one
    /// such as a slice's iterator) reaches, when an owner drops it: a parameter, or
    /// what the pointer was made from by a borrow, a move or a call given such a
    /// borrow.
    fn owned_source(&self, b: &BodyCx<'tcx>, local: Local, depth: usize) -> Option<Local> {
        let mir = b.mir;
        if depth > MAX_MOVE_CHAIN {
            return None;
        }
        let ty = mir.local_decls[local].ty;
        if (1..=mir.arg_count).contains(&local.as_usize()) {
            let owns = ty.is_ref() || (!ty.is_raw_ptr() && ty.needs_drop(self.tcx, self.env));
            return owns.then_some(local);
        }
        if self.owned_memory(b, self.local(b, local)) {
            return Some(local);
        }
        match assignment_of(b, local) {
            Some(mir::Rvalue::Ref(_, _, p) | mir::Rvalue::RawPtr(_, p)) => {
                return self.owned_place(b, p, depth);
            }
            Some(mir::Rvalue::Use(mir::Operand::Move(p) | mir::Operand::Copy(p), _))
                if p.projection.iter().all(|e| {
                    matches!(
                        e,
                        mir::ProjectionElem::Field(..) | mir::ProjectionElem::Downcast(..)
                    )
                }) =>
            {
                return self.owned_source(b, p.local, depth + 1);
            }
            Some(mir::Rvalue::Cast(_, mir::Operand::Move(p) | mir::Operand::Copy(p), _))
                if p.projection.is_empty() =>
            {
                return self.owned_source(b, p.local, depth + 1);
            }
            Some(_) => return None,
            None => {}
        }
        // The result of a call given a borrow of owned memory.
        let args = call_defining(b, local)?;
        args.iter().find_map(|a| match &a.node {
            mir::Operand::Move(p) | mir::Operand::Copy(p) if p.projection.is_empty() => {
                self.owned_source(b, p.local, depth + 1)
            }
            _ => None,
        })
    }

    /// Whether `value` reaches memory that an owner drops: a parameter's (not a raw
    /// pointer's), or an allocation's that holds values.
    fn owned_memory(&self, b: &BodyCx<'tcx>, value: ValueId) -> bool {
        let Some(root) = self.value(value).kind.root() else {
            return false;
        };
        let root = &self.roots[root.0 as usize];
        match root.origin {
            RootOrigin::Param(i) => b
                .mir
                .local_decls
                .get(Local::from_usize(i + 1))
                .is_some_and(|param| !param.ty.is_raw_ptr()),
            RootOrigin::Alloc => !root.uninit,
            _ => false,
        }
    }

    /// Whether the body calls anything that makes an [`Op::Duplicate`]: only there
    /// does a call that may unwind matter (and only there is it looked for).
    fn makes_duplicates(&self, b: &BodyCx<'tcx>) -> bool {
        *b.makes_duplicates.get_or_init(|| {
            let tcx = self.tcx;
            b.mir.basic_blocks.iter().any(|data| {
                let Some(TerminatorKind::Call { func, .. }) =
                    data.terminator.as_ref().map(|t| &t.kind)
                else {
                    return false;
                };
                let Some((def_id, _)) = func.const_fn_def() else {
                    return false;
                };
                if let Some(id) = def_id.as_local().and_then(|l| self.cx.fn_ids.get(&l)) {
                    return self
                        .computed_summary(*id)
                        .is_some_and(|s| !s.copies_within.is_empty());
                }
                matches!(
                    self.cx.models.role(tcx, def_id),
                    Some(Role::Copy { .. } | Role::BitwiseRead | Role::DropInPlace | Role::Uninit)
                )
            })
        })
    }

    /// A method of a type with a `Drop` of its own that borrows what it works on (a
    /// field of `&mut` type): the drain or cursor whose `Drop` puts the borrowed
    /// owner back in order after a panic, so copies it leaves are not the owner's.
    fn in_borrowing_guard(&self, b: &BodyCx<'tcx>) -> bool {
        let tcx = self.tcx;
        *b.borrowing_guard.get_or_init(|| {
            self_adt(b).is_some_and(|(adt, _)| {
                self.has_own_drop(adt)
                    && adt.all_fields().any(|f| {
                        tcx.type_of(f.did)
                            .instantiate_identity()
                            .skip_normalization()
                            .is_ref()
                    })
            })
        })
    }

    /// Whether the crate writes a `Drop` for `adt`.
    fn has_own_drop(&self, adt: ty::AdtDef<'tcx>) -> bool {
        self.tcx
            .adt_destructor(adt.did())
            .is_some_and(|d| d.did.is_local())
    }
}

/// The type the first parameter is (or points at), when it is a struct or enum.
fn self_adt<'tcx>(b: &BodyCx<'tcx>) -> Option<(ty::AdtDef<'tcx>, ty::GenericArgsRef<'tcx>)> {
    if b.mir.arg_count == 0 {
        return None;
    }
    match b.mir.local_decls[SELF].ty.peel_refs().kind() {
        ty::Adt(adt, args) => Some((*adt, *args)),
        _ => None,
    }
}

/// The arguments of the call whose result is `local`, when one call defines it.
fn call_defining<'tcx>(
    b: &BodyCx<'tcx>,
    local: Local,
) -> Option<&'tcx [Spanned<mir::Operand<'tcx>>]> {
    b.definitions().calls.get(&local).copied().flatten()
}

/// The rvalue assigned to `local` when one statement of the body assigns it whole.
pub(crate) fn assignment_of<'tcx>(
    b: &BodyCx<'tcx>,
    local: Local,
) -> Option<&'tcx mir::Rvalue<'tcx>> {
    b.definitions().assigned.get(&local).copied().flatten()
}

/// Where each local of a body is defined: by one statement assigning it whole, or by
/// one call returning into it (`None` where there are several, or a partial one).
/// A store through a pointer (`*p = v`) leaves the pointer as it was.
#[derive(Default)]
pub(crate) struct Definitions<'tcx> {
    assigned: FxHashMap<Local, Option<&'tcx mir::Rvalue<'tcx>>>,
    calls: FxHashMap<Local, Option<&'tcx [Spanned<mir::Operand<'tcx>>]>>,
    /// The functions whose calls return into the whole local, however many.
    callees: FxHashMap<Local, Vec<rustc_hir::def_id::DefId>>,
}

impl<'tcx> Definitions<'tcx> {
    pub(crate) fn of(mir: &'tcx mir::Body<'tcx>) -> Definitions<'tcx> {
        let mut defs = Definitions::default();
        for data in mir.basic_blocks.iter() {
            for stmt in &data.statements {
                let mir::StatementKind::Assign(assign) = &stmt.kind else {
                    continue;
                };
                let (place, rvalue) = &**assign;
                if matches!(place.projection.first(), Some(mir::ProjectionElem::Deref)) {
                    continue;
                }
                let whole = place.projection.is_empty();
                defs.assigned
                    .entry(place.local)
                    .and_modify(|d| *d = None)
                    .or_insert(whole.then_some(rvalue));
            }
            if let Some(TerminatorKind::Call {
                func,
                destination,
                args,
                ..
            }) = data.terminator.as_ref().map(|t| &t.kind)
            {
                let whole = destination.projection.is_empty();
                if let (true, Some((callee, _))) = (whole, func.const_fn_def()) {
                    defs.callees
                        .entry(destination.local)
                        .or_default()
                        .push(callee);
                }
                defs.calls
                    .entry(destination.local)
                    .and_modify(|d| *d = None)
                    .or_insert(whole.then_some(&args[..]));
            }
        }
        defs
    }
}
