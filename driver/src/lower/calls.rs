//! Calls: the callee the compiler resolved, then what the call does to memory, from
//! the callee's summary (a function of the crate), the model table (a library
//! function), or nothing known (any other function, which may keep what it is given).

use rustc_hir::def_id::DefId;
use rustc_middle::mir;
use rustc_middle::ty::{self, Instance, Ty};
use rustc_span::Spanned;

use tensor_lint_analyzer::ir::geometry;
use tensor_lint_analyzer::ir::{
    Callee, EscapeKind, FnId, Iteration, LeakKind, Op, ReleaseKind, ReleasedBy, RootOrigin,
    SliceSpec, TyClass, ValueId, ValueKind, ViewOp,
};
use tensor_lint_analyzer::models::{
    AtomicOp, Ctor, LayoutCtor, Meta, ReleaseHow, Role, Sem, ViewKind, WrapKind,
};
use tensor_lint_analyzer::oracle::{Expr, View};
use tensor_lint_analyzer::source::Span;
use tensor_lint_analyzer::summary::{self, AccessRegion, FnSummary, ReturnSummary};

use super::places::Loc;
use super::rvalues::{shifted, with_len};
use super::types;
use super::{BodyCx, FnLowerer};

/// One argument of a call.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Arg<'tcx> {
    pub value: Option<ValueId>,
    pub ty: Ty<'tcx>,
    /// Passed by `move` (rather than copied): an owner given away.
    pub moved: bool,
}

/// What a call was resolved to.
enum Target<'tcx> {
    Local(FnId),
    /// A trait method the compiler cannot pick an impl of (it is called on a type
    /// parameter): the crate's impls of it, one of which runs.
    AnyOf(Vec<FnId>, String),
    Model(Sem, String, ty::GenericArgsRef<'tcx>),
    /// A closure this function made, called directly.
    Closure(ValueId),
    /// A function an `extern` block declares.
    Foreign(rustc_hir::def_id::DefId),
    Unknown(String),
}

impl<'a, 'tcx> FnLowerer<'a, 'tcx> {
    /// The summary computed for function `id`, if it has one yet. The lowering now
    /// depends on it: the schedule lowers this function again if it changes.
    pub(crate) fn computed_summary(&self, id: FnId) -> Option<&'a FnSummary> {
        self.summaries_read.borrow_mut().push(id);
        self.summaries.get(id.0 as usize).and_then(Option::as_ref)
    }
}

impl<'tcx> FnLowerer<'_, 'tcx> {
    pub(crate) fn call(
        &mut self,
        b: &mut BodyCx<'tcx>,
        func: &mir::Operand<'tcx>,
        args: &[Spanned<mir::Operand<'tcx>>],
        destination: &mir::Place<'tcx>,
        span: Span,
    ) {
        let lowered: Vec<Arg<'tcx>> = args
            .iter()
            .map(|a| Arg {
                value: self.operand(b, &a.node, span),
                ty: a.node.ty(b.mir, self.tcx),
                moved: matches!(a.node, mir::Operand::Move(_)),
            })
            .collect();
        // The result: a value of this function, or a temporary stored into memory.
        let dest_ty = destination.ty(b.mir, self.tcx).ty;
        self.note_reached_inside(b, args, dest_ty);
        let assigned = destination
            .projection
            .is_empty()
            .then(|| self.assigned(b, destination.local));
        let loc = match assigned {
            Some(v) => Loc::Value(v),
            None => self.place(b, destination, span),
        };
        // What the local held before: a null stored over it lets go of that.
        self.replaced = assigned.map(|_| self.local(b, destination.local));
        let (dst, stored) = match loc {
            Loc::Value(v) => (v, None),
            loc => {
                let class = types::class_of(self.tcx, dest_ty);
                let v = self.new_value(None, ValueKind::Unknown, class, span);
                self.value_types.insert(v, dest_ty);
                (v, Some(loc))
            }
        };
        // `a.same_storage(&b)` of two tensors: the code asks whether they share storage,
        // and handles the case where they do itself.
        let tensors = lowered.len() == 2
            && lowered
                .iter()
                .all(|a| types::class_of(self.tcx, a.ty.peel_refs()) == TyClass::Tensor);
        if tensors && self.tests_shared_storage(func) {
            if let (Some(x), Some(y)) = (lowered[0].value, lowered[1].value) {
                let pair = (self.borrowed_from(x), self.borrowed_from(y));
                self.storage_tests.push(pair);
            }
        }
        if self.std_protocol(b, func, &lowered, dst, destination, span) {
            return;
        }
        if self.operator_call(b, func, &lowered, dst, dest_ty, span) {
            return;
        }
        match self.resolve(func) {
            Target::Local(id) => self.local_call(b, id, &lowered, dst, dest_ty, span),
            Target::AnyOf(ids, name) => {
                let summaries: Vec<FnSummary> =
                    ids.iter().filter_map(|&id| self.summary_of(id)).collect();
                if summaries.len() == ids.len() {
                    self.callees.extend(ids.iter().copied());
                    let values = lowered.iter().filter_map(|a| a.value).collect();
                    self.emit(
                        b,
                        Op::Call {
                            dst: Some(dst),
                            callee: Callee::Local(ids[0]),
                            args: values,
                        },
                        span,
                    );
                    let summary = FnSummary::of_alternatives(&summaries);
                    let def = self.cx.fns[ids[0].0 as usize].to_def_id();
                    self.apply_summary(b, summary, (&name, def), &lowered, dst, dest_ty, span);
                } else {
                    self.unknown_call(b, &name, &lowered, dst, span);
                }
            }
            Target::Model(sem, name, generics) => {
                let roots_before = self.roots.len();
                let call = ModelCall {
                    name: &name,
                    args: &lowered,
                    generics,
                    dst,
                    dest_ty,
                };
                self.model_call(b, sem, &call, span);
                if let Some((def_id, _)) = func.const_fn_def() {
                    self.record_producer(b, def_id, &lowered, dst, roots_before, span);
                }
            }
            Target::Closure(closure) => {
                if let ValueKind::Closure(body) = self.value(closure).kind {
                    let params: Vec<Option<ValueId>> =
                        lowered.iter().skip(1).map(|a| a.value).collect();
                    self.lower_pending_closure(body, &params);
                    self.emit(
                        b,
                        Op::Call {
                            dst: Some(dst),
                            callee: Callee::Closure(body),
                            args: params.into_iter().flatten().collect(),
                        },
                        span,
                    );
                }
            }
            Target::Foreign(def) => self.foreign_call(b, def, &lowered, dst, dest_ty, span),
            Target::Unknown(name) => {
                self.unknown_call(b, &name, &lowered, dst, span);
                self.wrapped(func, &lowered, dst, dest_ty);
            }
        }
        self.kept_for_ever(b, func, &lowered, span);
        if let Some(v) = assigned {
            b.current[destination.local.as_usize()] = v;
        }
        if let Some(loc) = stored {
            if let Loc::Memory { base, region } = loc {
                self.emit(
                    b,
                    Op::Write {
                        value: base,
                        region,
                    },
                    span,
                );
            }
            if self.value(dst).kind.is_memory() {
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
    }

    /// The item a call of trait method `def_id` runs, where the body's types say which
    /// impl that is.
    fn impl_of_call(
        &self,
        def_id: rustc_hir::def_id::DefId,
        generic_args: ty::GenericArgsRef<'tcx>,
    ) -> Option<rustc_hir::def_id::DefId> {
        Instance::try_resolve(self.tcx, self.env, def_id, generic_args)
            .ok()
            .flatten()
            .map(|instance| instance.def_id())
    }

    /// Memory handed to a parameter of type `&'static T` or `&'static mut T`
    /// (`pool.manage(Box::leak(block))`): the callee may keep the reference for the
    /// rest of the program, so the memory escapes there.
    fn kept_for_ever(
        &mut self,
        b: &BodyCx<'tcx>,
        func: &mir::Operand<'tcx>,
        args: &[Arg<'tcx>],
        span: Span,
    ) {
        let Some((def_id, _)) = func.const_fn_def() else {
            return;
        };
        if !matches!(
            self.tcx.def_kind(def_id),
            rustc_hir::def::DefKind::Fn | rustc_hir::def::DefKind::AssocFn
        ) {
            return;
        }
        let sig = self.tcx.fn_sig(def_id).skip_binder().skip_binder();
        for (param, arg) in sig.inputs().iter().zip(args) {
            let ty::Ref(region, _, _) = param.kind() else {
                continue;
            };
            if !region.is_static() {
                continue;
            }
            if let Some(v) = arg.value.filter(|&v| self.value(v).kind.is_memory()) {
                self.emit(
                    b,
                    Op::Escape {
                        value: v,
                        how: EscapeKind::Stored,
                    },
                    span,
                );
            }
        }
    }

    /// Whether a call of two tensors tests whether they share storage: candle's
    /// `same_storage`, or a function of the crate (also through a trait) that returns
    /// whether the storages `storage_and_layout` gives of both are one
    /// (`ptr::eq(&*a, &*b)`, `Arc::ptr_eq`).
    fn tests_shared_storage(&self, func: &mir::Operand<'tcx>) -> bool {
        let tcx = self.tcx;
        let Some((def_id, generic_args)) = func.const_fn_def() else {
            return false;
        };
        if self.cx.models.of(tcx, def_id).map(|m| m.sem) == Some(Sem::SameStorage) {
            return true;
        }
        let callee = match tcx.trait_of_assoc(def_id) {
            Some(_) => self.impl_of_call(def_id, generic_args),
            None => Some(def_id),
        };
        let Some(callee) = callee.filter(|c| c.is_local() && tcx.is_mir_available(*c)) else {
            return false;
        };
        let mir = tcx.optimized_mir(callee);
        if !mir.return_ty().is_bool() {
            return false;
        }
        let calls: Vec<Option<Role>> = crate::structs::direct_calls(mir)
            .map(|call| self.cx.models.role(tcx, call.callee))
            .collect();
        let storages = calls
            .iter()
            .filter(|r| **r == Some(Role::StorageOf))
            .count();
        storages >= 2 && calls.contains(&Some(Role::PointerEq))
    }

    /// The function a call runs: a function of this crate, a model, a closure of this
    /// function, or something unknown, by the item the compiler resolved.
    fn resolve(&mut self, func: &mir::Operand<'tcx>) -> Target<'tcx> {
        let tcx = self.tcx;
        let Some((def_id, generic_args)) = func.const_fn_def() else {
            return Target::Unknown("a function pointer".into());
        };
        let resolved = tcx
            .trait_of_assoc(def_id)
            .and_then(|_| self.impl_of_call(def_id, generic_args));
        // A closure of this function, called through `Fn*::call*`.
        if let Some(callee) = resolved {
            if tcx.is_closure_like(callee) {
                if let Some(&closure) = self.closure_values.get(&callee) {
                    return Target::Closure(closure);
                }
            }
        }
        let item = resolved.unwrap_or(def_id);
        // What the user's configuration says of a function comes first, even of one of
        // this crate.
        if let Some(model) = self.cx.models.user_of(tcx, item) {
            return Target::Model(model.sem, model.name, generic_args);
        }
        if let Some(local) = item.as_local() {
            if let Some(&id) = self.cx.fn_ids.get(&local) {
                return Target::Local(id);
            }
        }
        if let Some(model) = self
            .cx
            .models
            .of(tcx, item)
            .or_else(|| self.cx.models.of(tcx, def_id))
        {
            return Target::Model(model.sem, model.name.clone(), generic_args);
        }
        if tcx.is_foreign_item(item) {
            return Target::Foreign(item);
        }
        if resolved.is_none() {
            if let Some(trait_id) = tcx.trait_of_assoc(def_id) {
                let impls = self.crate_impls_of(trait_id, def_id);
                if !impls.is_empty() {
                    let name = format!("{}::{}", tcx.item_name(trait_id), tcx.item_name(def_id));
                    return Target::AnyOf(impls, name);
                }
            }
        }
        Target::Unknown(tcx.def_path_str(item))
    }

    /// A borrow of a whole struct handed to a call that returns a borrow or a pointer
    /// (`owned.deref()`, `buf.as_ptr()`): what it returns may be inside any field, so
    /// the function has reached them all (a `mem::forget` of the struct then gives up
    /// nothing the function did not see).
    fn note_reached_inside(
        &mut self,
        b: &BodyCx<'tcx>,
        args: &[Spanned<mir::Operand<'tcx>>],
        dest_ty: Ty<'tcx>,
    ) {
        if !(dest_ty.is_ref() || dest_ty.is_raw_ptr()) {
            return;
        }
        for a in args {
            let (mir::Operand::Copy(p) | mir::Operand::Move(p)) = &a.node else {
                continue;
            };
            if !p.projection.is_empty() {
                continue;
            }
            // The one assignment of the argument: `_5 = &_1`.
            let Some(mir::Rvalue::Ref(_, _, src)) = super::unwind::assignment_of(b, p.local) else {
                continue;
            };
            if !src.projection.is_empty() {
                continue;
            }
            let local = src.local;
            let ty::Adt(adt, _) = b.mir.local_decls[local].ty.kind() else {
                continue;
            };
            if !adt.is_struct() {
                continue;
            }
            let owner = self.canonical(self.local(b, local));
            for k in 0..adt.non_enum_variant().fields.len() {
                self.mentioned_fields.insert((owner, k as u32));
            }
        }
    }

    /// The functions of the crate that implement trait method `method`: each impl's
    /// own, or the trait's default body where an impl keeps it.
    fn crate_impls_of(
        &self,
        trait_id: rustc_hir::def_id::DefId,
        method: rustc_hir::def_id::DefId,
    ) -> Vec<FnId> {
        let tcx = self.tcx;
        let default = method
            .as_local()
            .and_then(|l| self.cx.fn_ids.get(&l).copied());
        let mut out = Vec::new();
        for imp in tcx.all_impls(trait_id) {
            if !imp.is_local() {
                continue;
            }
            let own = tcx
                .impl_item_implementor_ids(imp)
                .get(&method)
                .and_then(|f| f.as_local())
                .and_then(|l| self.cx.fn_ids.get(&l).copied());
            if let Some(id) = own.or(default) {
                if !out.contains(&id) {
                    out.push(id);
                }
            }
        }
        out.sort();
        out
    }

    /// Calls of the standard library the lowering follows by what they mean rather
    /// than through a model row: how `for` loops take their items (`IntoIterator::
    /// into_iter`, `Iterator::next`), `Option::ok_or`, indexing of vectors, `Arc::clone`,
    /// the count of items through iterator adapters, and `?` (`Try::branch`). Returns
    /// whether the call was lowered here.
    fn std_protocol(
        &mut self,
        b: &BodyCx<'tcx>,
        func: &mir::Operand<'tcx>,
        args: &[Arg<'tcx>],
        dst: ValueId,
        destination: &mir::Place<'tcx>,
        span: Span,
    ) -> bool {
        let tcx = self.tcx;
        let Some((def_id, _)) = func.const_fn_def() else {
            return false;
        };
        let Some(first) = args.first().and_then(|a| a.value) else {
            return false;
        };
        let role = self.cx.models.role(tcx, def_id);
        // `opt.ok_or(e)`: `Some(x)` becomes `Ok(x)`, `None` an `Err`.
        if role == Some(Role::OkOr) {
            if let Some(payload) = self.field_of(first, 1, 0) {
                self.set_field(dst, 0, 0, payload);
            }
            if let Some(&(pointer, _)) = self.null_variants.get(&first) {
                self.null_variants.insert(dst, (pointer, 1));
            }
            for a in args.iter().skip(1) {
                if let Some(ValueKind::Closure(body)) = a.value.map(|v| self.value(v).kind.clone())
                {
                    self.lower_pending_closure(body, &[]);
                }
            }
            return true;
        }
        if self.slice_argument(func, args, dst) {
            return true;
        }
        // Integers `core` computes: `a.min(b)`, `cmp::max(a, b)`, `a.div_ceil(b)`.
        let computes = matches!(role, Some(Role::Min | Role::Max | Role::DivCeil));
        if computes && args.len() == 2 {
            let l = self.int_of(first);
            let r = args[1].value.and_then(|v| self.int_of(v));
            let int = l.zip(r).and_then(|(l, r)| match role {
                Some(Role::Min) => Some(l.minimum(&r)),
                Some(Role::Max) => Some(l.maximum(&r)),
                // Of unsigned integers: `(a + b - 1) / b`.
                Some(Role::DivCeil) => Some((&(&l + &r) - &Expr::int(1)).div_floor(r)),
                _ => None,
            });
            if let Some(int) = int {
                self.value_mut(dst).int = Some(int);
                return true;
            }
        }
        // `lo..=hi`, made by a call: the integers `lo..hi + 1`.
        if role == Some(Role::InclusiveRange) {
            let lo = self.int_of(first);
            let hi = args
                .get(1)
                .and_then(|a| a.value)
                .and_then(|v| self.int_of(v));
            if let (Some(lo), Some(hi)) = (lo, hi) {
                self.ranges.insert(dst, (lo, &hi + &Expr::int(1)));
            }
            return true;
        }
        // `Arc::new(s)` of a struct with cells among other fields: the object's bytes,
        // shared by every handle (see `types::shared_cells`).
        if role == Some(Role::SharedNew) {
            let object = args[0].ty;
            let shared =
                types::shared_cells(tcx, Ty::new_imm_ref(tcx, tcx.lifetimes.re_erased, object));
            if let (Some(object), Some(size)) = (shared, types::size_of(tcx, self.env, object)) {
                let len = Expr::int(i64::try_from(size).unwrap_or(i64::MAX));
                let dest_ty = destination.ty(b.mir, tcx).ty;
                self.new_allocation(
                    b,
                    dst,
                    dest_ty,
                    ReleasedBy::Drop,
                    Some(vec![len.clone()]),
                    span,
                );
                if let Some(root) = self.value(dst).kind.root() {
                    let r = &mut self.roots[root.0 as usize];
                    r.elem_bytes = 1;
                    r.elem_type = Some(types::short_name(tcx, object));
                    self.value_mut(dst).view = Some(View::contiguous(root, 1, vec![len]));
                }
                return true;
            }
        }
        // `opt.map(f)` of an `Option` or a `Result`.
        if role == Some(Role::PayloadMap) {
            let dest_ty = destination.ty(b.mir, tcx).ty;
            if self.mapped_payload(b, args, dst, dest_ty, span) {
                return true;
            }
            self.payload_handed_on(b, args, span);
        }
        // `opt.map_or(default, f)`: what `f` makes of the payload, or the default.
        if let (Some(Role::PayloadMapOr), [opt, _, f]) = (role, args) {
            let dest_ty = destination.ty(b.mir, tcx).ty;
            if self.mapped_payload(b, &[*opt, *f], dst, dest_ty, span) {
                return true;
            }
        }
        let Some(trait_id) = tcx.trait_of_assoc(def_id) else {
            return false;
        };
        // What a rayon producer's piece hands its folder.
        if let Some(Role::FolderTakes(every)) = role {
            if self.folder_call(b, every, args, span) {
                return true;
            }
        }
        if role == Some(Role::IntoIter) {
            self.copy_value(b, dst, first, span);
            self.iter_over_handles(first, dst);
            if let Some(info) = self.iters.get(&first).cloned() {
                self.iters.insert(dst, info);
            } else if self.walks_elements(args[0].ty, first) {
                // `for x in &mut v[..]`: one element after the other.
                self.iters.insert(
                    dst,
                    super::closures::IterInfo {
                        source: first,
                        axis: 0,
                        chunk: None,
                        parallel: false,
                        wraps: Vec::new(),
                    },
                );
            }
            return true;
        }
        if role == Some(Role::IterNext) {
            if self.next_handle(b, first, dst, span) {
                return true;
            }
            self.next_item(b, first, dst, destination.as_local(), span);
            return true;
        }
        // `iter.for_each(|item| ..)`: the closure's body is the body of a loop over the
        // items, run here.
        if role == Some(Role::IterForEach) {
            let closure = args.get(1).and_then(|a| a.value);
            if let Some(ValueKind::Closure(body)) = closure.map(|v| self.value(v).kind.clone()) {
                // The items: of memory walked, or the integers of a range.
                let info = self.iters.get(&first).cloned().filter(|i| !i.parallel);
                let range = self
                    .ranges
                    .get(&first)
                    .cloned()
                    .filter(|_| !self.parallel_ranges.contains(&first));
                let (item, iteration) = if let Some(info) = info {
                    let symbol = self.varying_symbol("it");
                    let (item, count) = self.iteration_item(b, &info, &symbol, span);
                    (Some(item), Some((symbol, count, item)))
                } else if let Some((lo, hi)) = range {
                    let symbol = self.varying_symbol("it");
                    let item = self.new_value(None, ValueKind::Scalar, TyClass::Scalar, span);
                    self.value_mut(item).int = Some(&lo + &Expr::sym(&symbol));
                    self.loop_starts.push((symbol.clone(), lo.clone()));
                    (Some(item), Some((symbol, &hi - &lo, item)))
                } else {
                    (None, None)
                };
                // The closure's body runs once per item: a loop of its own.
                if let Some((symbol, count, item)) = iteration {
                    let iteration = Iteration {
                        symbol,
                        lo: Expr::int(0),
                        hi: count,
                        value: Some(item),
                    };
                    self.loop_ranges.push((body, iteration));
                }
                self.repeated_closures.insert(body);
                self.lower_pending_closure(body, &[item]);
                self.emit(
                    b,
                    Op::Call {
                        dst: Some(dst),
                        callee: Callee::Closure(body),
                        args: item.into_iter().collect(),
                    },
                    span,
                );
                return true;
            }
        }
        // `v[i]` and `v[lo..hi]` of a vector (a slice's are projections of the place):
        // the element or the range of the buffer.
        let index_trait = tcx.is_lang_item(trait_id, rustc_attr_ir::LangItem::Index)
            || tcx.is_lang_item(trait_id, rustc_attr_ir::LangItem::IndexMut);
        if index_trait
            && types::is_buffer_target(tcx, args[0].ty)
            && self.value(first).kind.is_memory()
        {
            let index = args.get(1).and_then(|a| a.value);
            let view = self.value(first).view.clone();
            let (how, region) = match index {
                Some(i) if args[1].ty.is_integral() => match self.int_of(i) {
                    Some(i) => (
                        ViewOp::Offset(i.clone()),
                        view.and_then(|v| super::places::element(&v, &i)),
                    ),
                    None => (ViewOp::Opaque("index".into()), None),
                },
                Some(i) => match self.index_range(i, args[1].ty, first) {
                    Some((lo, hi)) => (
                        ViewOp::Offset(lo.clone()),
                        view.and_then(|v| super::places::sub_range(&v, &lo, &hi)),
                    ),
                    // `a[[r, c]]`, `a[(r, c)]` of an array: one element, each index on
                    // its own axis.
                    None => match self.multi_index(i, args[1].ty, view.as_ref()) {
                        Some(element) => (
                            ViewOp::Offset(
                                &element.offset
                                    - &view.as_ref().map_or(Expr::int(0), |v| v.offset.clone()),
                            ),
                            Some(element),
                        ),
                        None => (ViewOp::Opaque("index".into()), None),
                    },
                },
                None => (ViewOp::Opaque("index".into()), None),
            };
            self.derive(b, dst, first, how, region, span);
            self.indexed.insert(dst, span);
            // Named as written: `inliers[t]`.
            if self.value(dst).name.is_none() {
                let named = index.map(|i| self.scalar_origin(i));
                if let Some(i) = named.and_then(|i| self.value(i).name.clone()) {
                    let base = match (&self.value(first).name, self.value(first).kind.root()) {
                        (Some(name), _) => name.clone(),
                        (None, Some(root)) => self.roots[root.0 as usize].name.clone(),
                        (None, None) => self.display_name(first),
                    };
                    self.value_mut(dst).name = Some(format!("{base}[{i}]"));
                }
            }
            return true;
        }
        // `Arc::clone(&a)`: another handle to the same memory.
        if tcx.is_lang_item(trait_id, rustc_attr_ir::LangItem::Clone) {
            let shared = args[0].ty.builtin_deref(true).is_some_and(|t| {
                types::adt_is(tcx, t, "alloc", "Arc") || types::adt_is(tcx, t, "alloc", "Rc")
            });
            if shared {
                let src = self.pointees.get(&first).copied().unwrap_or(first);
                self.copy_value(b, dst, src, span);
                return true;
            }
        }
        // Adapters that give one item per item: the count goes through (the call
        // itself is lowered as any other).
        if matches!(role, Some(Role::IterMap | Role::IterOnePerItem)) {
            if let Some(len) = self.iter_len(first) {
                self.iter_lens.insert(dst, len);
            }
            if role == Some(Role::IterMap) {
                if let Some(f) = args.get(1) {
                    if let Some(ValueKind::Closure(body)) =
                        f.value.map(|v| self.value(v).kind.clone())
                    {
                        self.mapped_closures.insert(dst, (first, body));
                    }
                    self.mapped_pointers(b, first, f, dst, span);
                    self.mapped_handles(f, dst);
                }
            }
            return false;
        }
        if role == Some(Role::IterCollect) {
            let dest_ty = destination.ty(b.mir, tcx).ty;
            if self.collected_handles(b, first, dst, dest_ty, span)
                || self.collected_pointers(b, first, dst, dest_ty, span)
            {
                return true;
            }
        }
        // `x?` asks `Try::branch(x)` whether to go on: the value it goes on with is what
        // `x` holds in `Ok` or `Some`, and nothing is handed anywhere.
        if tcx.is_lang_item(def_id, rustc_attr_ir::LangItem::TryTraitBranch) {
            let payload = self
                .payload(args[0].ty)
                .and_then(|(variant, _)| self.field_of(first, variant, 0));
            if let Some(payload) = payload {
                self.set_field(dst, 0, 0, payload);
            }
            // Whatever meant null (`None`, an `Err` made from it) breaks out.
            if let Some(&(pointer, _)) = self.null_variants.get(&first) {
                self.null_variants.insert(dst, (pointer, 1));
            }
            return true;
        }

        false
    }

    /// How many items iterator `v` gives, when known.
    pub(crate) fn iter_len(&self, v: ValueId) -> Option<Expr> {
        if let Some(len) = self.iter_lens.get(&v) {
            return Some(len.clone());
        }
        let (lo, hi) = self.ranges.get(&v)?;
        Some(hi - lo)
    }

    /// Of an `Option<T>` or `Result<T, E>`, the variant holding a `T` and `T` itself.
    pub(crate) fn payload(&self, ty: Ty<'tcx>) -> Option<(u32, Ty<'tcx>)> {
        let ty::Adt(adt, args) = ty.kind() else {
            return None;
        };
        let tcx = self.tcx;
        let variant = if tcx.is_diagnostic_item(rustc_span::sym::Option, adt.did()) {
            1
        } else if tcx.is_diagnostic_item(rustc_span::sym::Result, adt.did()) {
            0
        } else {
            return None;
        };
        Some((variant, args.types().next()?))
    }

    /// A crate-defined `Drop::drop` run on `v`, released as the drop that runs it.
    pub(crate) fn destructor_call(
        &mut self,
        b: &BodyCx<'tcx>,
        id: FnId,
        v: ValueId,
        how: ReleaseKind,
        span: Span,
    ) {
        let ty = self
            .value_types
            .get(&v)
            .copied()
            .unwrap_or(self.tcx.types.unit);
        let args = [Arg {
            value: Some(v),
            ty,
            moved: false,
        }];
        self.releasing = Some(how);
        self.local_call(b, id, &args, v, self.tcx.types.unit, span);
        self.releasing = None;
    }

    /// The values holding memory that `v` is or holds: itself, or the fields it was
    /// built with, and theirs (a struct passed to a function that frees what it holds,
    /// a tuple returned).
    pub(crate) fn memory_parts(&self, v: ValueId) -> Vec<ValueId> {
        let mut out = Vec::new();
        self.collect_memory_parts(v, 0, false, &mut out);
        out
    }

    /// What a value's `Drop` releases of the memory parts of `v`: also the memory of a
    /// struct of the caller's that the function reached through a call (see
    /// `struct_memory`), which the value holds as a field (`Box<T, A>`'s `Unique<T>`).
    fn dropped_parts(&self, v: ValueId) -> Vec<ValueId> {
        let mut out = Vec::new();
        self.collect_memory_parts(v, 0, true, &mut out);
        out
    }

    fn collect_memory_parts(&self, v: ValueId, depth: u32, objects: bool, out: &mut Vec<ValueId>) {
        if let Some(root) = self.value(v).kind.root() {
            if !out.contains(&v) {
                out.push(v);
            }
            // An array on the stack holds what its elements hold.
            if self.roots[root.0 as usize].origin != RootOrigin::Static {
                return;
            }
        }
        // A struct of the caller's whose memory the body reached through a call (see
        // `struct_memory`): the root standing for all it holds.
        let memory = self
            .param_structs
            .get(&self.canonical(v))
            .and_then(|index| self.object_memory.get(index))
            .filter(|_| objects);
        if let Some(&memory) = memory {
            if !out.contains(&memory) {
                out.push(memory);
            }
            return;
        }
        if depth > 3 {
            return;
        }
        let base = self.pointees.get(&v).copied().unwrap_or(v);
        for (_, _, field) in self.fields_of(base) {
            self.collect_memory_parts(field, depth + 1, objects, out);
        }
    }

    /// A call to a function of this crate: its summary's effects happen here.
    fn local_call(
        &mut self,
        b: &BodyCx<'tcx>,
        id: FnId,
        args: &[Arg<'tcx>],
        dst: ValueId,
        dest_ty: Ty<'tcx>,
        span: Span,
    ) {
        self.callees.push(id);
        let values: Vec<ValueId> = args.iter().filter_map(|a| a.value).collect();
        self.emit(
            b,
            Op::Call {
                dst: Some(dst),
                callee: Callee::Local(id),
                args: values,
            },
            span,
        );
        let Some(summary) = self.summary_of(id) else {
            return;
        };
        let def = self.cx.fns[id.0 as usize].to_def_id();
        let callee_name = self.fn_display_name(def);
        let says_nothing = summary.returns == ReturnSummary::Nothing;
        self.apply_summary(b, summary, (&callee_name, def), args, dst, dest_ty, span);
        if says_nothing && !self.value(dst).kind.is_memory() {
            self.signature_result(b, def, args, dst, dest_ty, span);
        }
    }

    /// What the callee's signature alone says of its result, when its body said nothing
    /// (a generic callee, whose memory is its caller's type): `fn get(&self) -> &mut T`
    /// hands out unique access to all the receiver holds, unseen by the borrow checker
    /// (so each call claims it); `fn new(target: &'a mut T) -> Self` makes a value that
    /// holds its one `&mut` argument.
    fn signature_result(
        &mut self,
        b: &BodyCx<'tcx>,
        def: DefId,
        args: &[Arg<'tcx>],
        dst: ValueId,
        dest_ty: Ty<'tcx>,
        span: Span,
    ) {
        let tcx = self.tcx;
        let method = tcx.impl_of_assoc(def).is_some() && tcx.associated_item(def).is_method();
        let shared_ref = |ty: Ty<'tcx>| matches!(ty.kind(), ty::Ref(_, _, ty::Mutability::Not));
        let mut_ref = |ty: Ty<'tcx>| matches!(ty.kind(), ty::Ref(_, _, ty::Mutability::Mut));
        if method && mut_ref(dest_ty) && args.len() == 1 && shared_ref(args[0].ty) {
            let Some(receiver) = args[0].value else {
                return;
            };
            let src = if self.value(receiver).kind.is_memory() {
                Some(receiver)
            } else {
                self.struct_memory(b, receiver, span)
            };
            let Some(src) = src.filter(|&v| self.value(v).kind.is_memory()) else {
                return;
            };
            let view = self.value(src).view.clone();
            let how = match &view {
                Some(view) => ViewOp::FromRaw {
                    shape: view.dims.iter().map(|d| d.len.clone()).collect(),
                    strides: Some(view.dims.iter().map(|d| d.stride.clone()).collect()),
                },
                None => ViewOp::Opaque(self.fn_display_name(def)),
            };
            self.derive(b, dst, src, how, view.clone(), span);
            self.emit(
                b,
                Op::Claim {
                    value: dst,
                    region: view,
                },
                span,
            );
            return;
        }
        let returns_self = tcx.impl_of_assoc(def).is_some_and(|imp| {
            let declared = tcx
                .fn_sig(def)
                .instantiate_identity()
                .skip_binder()
                .output();
            declared == tcx.type_of(imp).instantiate_identity().skip_normalization()
        });
        let muts: Vec<&Arg<'tcx>> = args.iter().filter(|a| mut_ref(a.ty)).collect();
        if let (false, true, [one]) = (method, returns_self, muts.as_slice()) {
            if let Some(src) = one.value.filter(|&v| self.value(v).kind.is_memory()) {
                let view = self.value(src).view.clone();
                self.derive(b, dst, src, ViewOp::Whole, view, span);
            }
        }
    }

    /// What `ptr::write` through `value` (of type `pointer_ty`) does: writes the
    /// memory it points at, or, for an owner (a `Box`, a `Vec`), stores into its slot.
    pub(crate) fn store_through(
        &self,
        pointer_ty: Ty<'tcx>,
        value: ValueId,
        region: Option<View>,
    ) -> Op {
        // Storing an owner writes its slot, not what the old owner held.
        let owner = pointer_ty
            .builtin_deref(true)
            .is_some_and(|t| types::owns_memory(self.tcx, t));
        if owner {
            Op::Store { value, region }
        } else {
            Op::Write { value, region }
        }
    }

    /// What calling function `id` does, as far as known now: its summary, or what its
    /// annotations say while it is not summarised yet.
    pub(crate) fn summary_of(&self, id: FnId) -> Option<FnSummary> {
        self.computed_summary(id).cloned().or_else(|| {
            self.cx
                .annotations
                .get(id.0 as usize)
                .map(FnSummary::from_annotations)
        })
    }

    /// The effects a summary says a call has, on its arguments and result.
    #[allow(clippy::too_many_arguments)]
    fn apply_summary(
        &mut self,
        b: &BodyCx<'tcx>,
        summary: FnSummary,
        (callee_name, callee): (&str, DefId),
        args: &[Arg<'tcx>],
        dst: ValueId,
        dest_ty: Ty<'tcx>,
        span: Span,
    ) {
        let callee_name = callee_name.to_string();
        let arg = |i: usize| args.get(i).and_then(|a| a.value);
        let memory = |this: &Self, v: ValueId| this.value(v).kind.is_memory();
        // A struct argument stands for the memory its fields hold.
        let parts = |this: &Self, i: usize| -> Vec<ValueId> {
            arg(i).map(|v| this.memory_parts(v)).unwrap_or_default()
        };
        for &i in &summary.reads {
            for v in parts(self, i) {
                // Through a raw pointer, the elements the callee says it reads, placed
                // here, as its writes are below.
                if let Some(regions) =
                    self.placed_accesses(callee, &summary.read_regions, i, v, args)
                {
                    for region in regions {
                        let region = Some(region);
                        self.emit(b, Op::Read { value: v, region }, span);
                    }
                    continue;
                }
                let region = self.value(v).view.clone();
                self.emit(b, Op::Read { value: v, region }, span);
            }
        }
        // A new length of the old one and more (`self.len + 1`) among the arguments.
        let grows = args
            .iter()
            .filter_map(|a| a.value)
            .any(|v| self.value(v).int.as_ref().is_some_and(longer));
        for &i in &summary.sets_len {
            if let Some(v) = arg(i) {
                let owner = self.borrowed_from(v);
                self.emit(
                    b,
                    Op::SetLen {
                        value: owner,
                        grows,
                    },
                    span,
                );
            }
        }
        for &i in &summary.writes {
            for v in parts(self, i) {
                // Through a raw pointer, the elements the callee says it writes
                // (`*bits.add(i / 8) |= ..` writes element `i / 8`), placed here.
                if let Some(regions) =
                    self.placed_accesses(callee, &summary.write_regions, i, v, args)
                {
                    for region in regions {
                        self.emit(
                            b,
                            Op::Write {
                                value: v,
                                region: Some(region),
                            },
                            span,
                        );
                    }
                    continue;
                }
                let region = self.value(v).view.clone();
                self.emit(b, Op::Write { value: v, region }, span);
            }
        }
        for &i in &summary.inplace {
            for v in parts(self, i) {
                let srcs = args
                    .iter()
                    .enumerate()
                    .filter(|(k, _)| *k != i)
                    .filter_map(|(_, a)| a.value)
                    .filter(|&s| memory(self, s))
                    .collect();
                self.emit(
                    b,
                    Op::InPlace {
                        dst: v,
                        srcs,
                        method: callee_name.clone(),
                    },
                    span,
                );
            }
        }
        for &i in &summary.escapes {
            for v in parts(self, i) {
                self.emit(
                    b,
                    Op::Escape {
                        value: v,
                        how: EscapeKind::PassedOn(callee_name.clone()),
                    },
                    span,
                );
            }
        }
        for &i in &summary.frees {
            let freed = match self.releasing {
                Some(_) => arg(i).map(|v| self.dropped_parts(v)).unwrap_or_default(),
                None => parts(self, i),
            };
            let how = self
                .releasing
                .clone()
                .unwrap_or_else(|| ReleaseKind::Function(callee_name.clone()));
            for v in freed {
                if self.released_handle(b, v, &how, span) {
                    continue;
                }
                let how = how.clone();
                self.emit(b, Op::Release { value: v, how }, span);
            }
        }
        // Atomic writes of the callee land on the argument's bytes it names (a field of
        // an object given by reference), or on the whole argument (an element).
        for &(i, bytes, inner) in &summary.atomic_writes {
            let Some(v) = arg(i).filter(|&v| memory(self, v)) else {
                continue;
            };
            // An element that points to an object of its own (`&[Arc<Stats>]`): the
            // callee writes that object, elsewhere, not the element.
            let object_pointer = self.value(v).kind.root().is_some_and(|r| {
                self.roots[r.0 as usize]
                    .elem_type
                    .as_deref()
                    .is_some_and(tensor_lint_analyzer::models::is_object_pointer)
            });
            if object_pointer {
                continue;
            }
            let view = self.value(v).view.clone();
            let value = match (bytes, view) {
                (Some((offset, len)), Some(view)) if view.elem_bytes == 1 => {
                    let field = View {
                        root: view.root,
                        elem_bytes: 1,
                        offset: &view.offset + &Expr::int(offset),
                        dims: vec![tensor_lint_analyzer::oracle::Dim::new(Expr::int(len), 1)],
                    };
                    let class = self.value(v).ty;
                    let part =
                        self.new_value(self.value(v).name.clone(), ValueKind::Unknown, class, span);
                    self.derive(
                        b,
                        part,
                        v,
                        ViewOp::Offset(Expr::int(offset)),
                        Some(field),
                        span,
                    );
                    part
                }
                _ => v,
            };
            self.emit(
                b,
                Op::Atomic {
                    value,
                    write: true,
                    inner: Some(inner),
                },
                span,
            );
        }
        // Atomic writes of the callee to entries of `static` tables it chooses.
        // Atomic writes of the callee to entries of its arguments' buffer fields (a lock
        // of `self.stripes` taken), at the index it is given or one it computes.
        for w in &summary.field_writes {
            let Some(a) = args.get(w.param) else { continue };
            let Some(v) = a.value else { continue };
            let object_ty = a.ty.peel_refs();
            let ty::Adt(adt, generics) = object_ty.kind() else {
                continue;
            };
            if !adt.is_struct() {
                continue;
            }
            let Some((k, def)) = adt
                .non_enum_variant()
                .fields
                .iter()
                .enumerate()
                .find(|(_, f)| f.name.as_str() == w.field)
            else {
                continue;
            };
            let field_ty = def.ty(self.tcx, generics).skip_normalization();
            let object = match self.pointees.get(&v) {
                Some(&target) => target,
                None if a.ty.is_ref() => match self.deref(v, a.ty, span) {
                    Loc::Value(target) => target,
                    _ => continue,
                },
                None => v,
            };
            let field = self.field_value(object, object_ty, (0, k as u32), field_ty, false, span);
            let Some(table) = self.value(field).view.clone().filter(|t| t.dims.len() == 1) else {
                continue;
            };
            let index = match w
                .index
                .as_ref()
                .and_then(|i| self.callee_offset(callee, i, args))
            {
                Some(i) => i,
                None => self.run_time_index(table.dims[0].len.clone()),
            };
            let entry = super::places::element(&table, &index);
            let class = self.value(field).ty;
            let value = self.new_value(
                self.value(field).name.clone(),
                ValueKind::Unknown,
                class,
                span,
            );
            self.derive(
                b,
                value,
                field,
                ViewOp::Slice(vec![SliceSpec::Index(index)]),
                entry,
                span,
            );
            self.emit(
                b,
                Op::Atomic {
                    value,
                    write: true,
                    inner: Some(w.span),
                },
                span,
            );
        }
        for (table, inner) in &summary.table_writes {
            let entry = self.new_value(
                Some(table.name.clone()),
                ValueKind::Unknown,
                TyClass::Unknown,
                span,
            );
            self.table_entry(b, table, entry, span);
            self.emit(
                b,
                Op::Atomic {
                    value: entry,
                    write: true,
                    inner: Some(*inner),
                },
                span,
            );
        }
        // An owner moved into the callee is the callee's: it drops or keeps it. An
        // address handed over as an integer (`p as usize`) is a number to the callee,
        // which its summary does not follow: the callee may keep it.
        for (i, a) in args.iter().enumerate() {
            if let Some(v) = a.value {
                let owner_moved = a.moved && types::owns_memory(self.tcx, a.ty);
                let address =
                    a.ty.is_integral() && matches!(self.value(v).kind, ValueKind::RawPtr(Some(_)));
                if (owner_moved || address)
                    && !summary.frees.contains(&i)
                    && !summary.escapes.contains(&i)
                    && memory(self, v)
                {
                    self.emit(
                        b,
                        Op::Escape {
                            value: v,
                            how: EscapeKind::PassedOn(callee_name.clone()),
                        },
                        span,
                    );
                }
            }
        }
        // `owns(key, part, parts)`: what the callee's `true` says, over the arguments.
        if let [said] = summary.returns_condition.as_slice() {
            let lhs = self.callee_offset(callee, &said.lhs, args);
            let rhs = self.callee_offset(callee, &said.rhs, args);
            if let (Some(lhs), Some(rhs)) = (lhs, rhs) {
                let cmp = said.cmp;
                self.conditions
                    .insert(dst, tensor_lint_analyzer::ir::Assumption { lhs, cmp, rhs });
            }
        }
        match summary.returns {
            // A struct of the crate with owners in its fields holds each of them: its
            // fields are what is new.
            ReturnSummary::Alloc(_) if self.owning_fields_made(b, dst, dest_ty, span) => {}
            ReturnSummary::Alloc(released_by) => {
                // A struct whose own `Drop` releases what it holds is dropped like any
                // owner.
                let released_by = if self.drop_releases(dest_ty) {
                    ReleasedBy::Drop
                } else {
                    released_by
                };
                self.held_allocation(b, dst, dest_ty, released_by, None, span);
            }
            ReturnSummary::ViewOf(i) => {
                // Of a struct argument, the memory it reaches.
                let src = arg(i).and_then(|v| {
                    if memory(self, v) {
                        Some(v)
                    } else {
                        self.struct_memory(b, v, span)
                    }
                });
                if let Some(src) = src {
                    // What a struct's getter returns goes by the struct's name, as the
                    // call is written (`p.get()` is `p`).
                    if let Some(v) = arg(i).filter(|&v| v != src && self.value(dst).name.is_none())
                    {
                        let v = self.pointees.get(&v).copied().unwrap_or(v);
                        let name = self.value(self.canonical(v)).name.clone();
                        self.value_mut(dst).name = name;
                    }
                    let view = if summary.returns_whole {
                        self.value(src).view.clone()
                    } else {
                        match &summary.returns_offset {
                            Some(offset) => {
                                let offset = self.callee_offset(callee, offset, args);
                                self.value(src)
                                    .view
                                    .as_ref()
                                    .zip(offset)
                                    .map(|(v, offset)| View {
                                        dims: Vec::new(),
                                        ..shifted(v, &offset)
                                    })
                            }
                            None => None,
                        }
                    };
                    // `unsafe fn get(self, i) -> &'a mut T { &mut *self.first.add(i) }` of
                    // a copyable handle (or `&self`): a `&mut` the borrow checker never
                    // saw, rebuilt from a pointer, unique for as long as it lives.
                    let given = args.get(i).map(|a| a.ty);
                    let unchecked =
                        given.is_some_and(|ty| {
                            !matches!(ty.kind(), ty::Ref(_, _, ty::Mutability::Mut))
                                && self.tcx.type_is_copy_modulo_regions(self.env, ty)
                        }) && matches!(dest_ty.kind(), ty::Ref(_, _, ty::Mutability::Mut));
                    let how = match &view {
                        Some(view) if unchecked => ViewOp::FromRaw {
                            shape: view.dims.iter().map(|d| d.len.clone()).collect(),
                            strides: Some(view.dims.iter().map(|d| d.stride.clone()).collect()),
                        },
                        _ if summary.returns_whole => ViewOp::Whole,
                        _ => ViewOp::Opaque(callee_name.to_string()),
                    };
                    // A pointer in the `Ok` or `Some` of the result (`fn check(p) ->
                    // Result<*mut T, E>`) is held by that payload.
                    let pointer_payload = self
                        .payload(dest_ty)
                        .is_some_and(|(_, payload)| payload.is_raw_ptr());
                    let holder = if pointer_payload {
                        self.allocation_holder(dst, dest_ty, span).0
                    } else {
                        dst
                    };
                    self.derive(b, holder, src, how, view.clone(), span);
                    if unchecked {
                        self.emit(
                            b,
                            Op::Claim {
                                value: dst,
                                region: view,
                            },
                            span,
                        );
                    }
                }
            }
            ReturnSummary::Entry(table) => self.table_entry(b, &table, dst, span),
            ReturnSummary::Nothing => {
                // An integer the callee computes is a value of its own: the same for the
                // same callee and arguments (`self.row_stride()` twice is one stride).
                if dest_ty.is_integral() && self.value(dst).int.is_none() {
                    let mut key = callee_name.rsplit("::").next().unwrap_or("").to_string();
                    let receiver = arg(0).map(|v| {
                        let v = self.pointees.get(&v).copied().unwrap_or(v);
                        self.display_name(self.canonical(v))
                    });
                    if let Some(receiver) = receiver.filter(|_| args.len() == 1) {
                        key = format!("{receiver}.{key}");
                    }
                    if args.len() <= 1 {
                        self.value_mut(dst).int = Some(Expr::sym(&key));
                    }
                }
                // What the callee built and hands back is the caller's to drop: an
                // owner, or a struct of the crate with owners in its fields (each field
                // is dropped with the struct).
                if types::owns_memory(self.tcx, dest_ty) {
                    self.new_allocation(b, dst, dest_ty, ReleasedBy::Drop, None, span);
                    if let Some(root) = self.value(dst).kind.root() {
                        self.roots[root.0 as usize].origin = RootOrigin::Unknown;
                    }
                } else {
                    self.owning_fields_made(b, dst, dest_ty, span);
                }
            }
        }
    }

    /// The elements `callee` reads or writes (`regions`, of its summary) through its
    /// raw-pointer parameter `param`, placed at the pointer `value` given for it (see
    /// `summary::placed`); `None` when the summary does not place them or an integer
    /// argument is not known.
    fn placed_accesses(
        &self,
        callee: DefId,
        regions: &[AccessRegion],
        param: usize,
        value: ValueId,
        args: &[Arg<'tcx>],
    ) -> Option<Vec<View>> {
        if !matches!(self.value(value).kind, ValueKind::RawPtr(_)) {
            return None;
        }
        let at = self.value(value).view.clone()?;
        summary::placed(regions, param, &at, |e| self.callee_offset(callee, e, args))
    }

    /// `dst`, a struct of the crate without a `Drop` of its own that a callee built: each
    /// of its fields that owns memory holds a new allocation, named after the field and
    /// dropped with the struct. Whether there were such fields.
    fn owning_fields_made(
        &mut self,
        b: &BodyCx<'tcx>,
        dst: ValueId,
        dest_ty: Ty<'tcx>,
        span: Span,
    ) -> bool {
        let ty::Adt(adt, generics) = dest_ty.kind() else {
            return false;
        };
        let plain =
            adt.did().is_local() && adt.is_struct() && self.tcx.adt_destructor(adt.did()).is_none();
        if !plain {
            return false;
        }
        let fields: Vec<(u32, String, Ty<'tcx>)> = adt
            .non_enum_variant()
            .fields
            .iter()
            .enumerate()
            .map(|(k, f)| {
                (
                    k as u32,
                    f.name.to_string(),
                    f.ty(self.tcx, generics).skip_normalization(),
                )
            })
            .filter(|(_, _, t)| types::owns_memory(self.tcx, *t))
            .collect();
        let base = self.value(dst).name.clone();
        for (k, field_name, field_ty) in &fields {
            if self.field_of(dst, 0, *k).is_some() {
                continue;
            }
            let class = types::class_of(self.tcx, *field_ty);
            let name = base.as_ref().map(|n| format!("{n}.{field_name}"));
            let field = self.new_value(name, ValueKind::Unknown, class, span);
            self.value_types.insert(field, *field_ty);
            self.new_allocation(b, field, *field_ty, ReleasedBy::Drop, None, span);
            if let Some(root) = self.value(field).kind.root() {
                self.roots[root.0 as usize].origin = RootOrigin::Unknown;
            }
            self.set_field(dst, 0, *k, field);
        }
        !fields.is_empty()
    }

    /// `v`'s place, read and then written (an update of it).
    fn read_and_write(&mut self, b: &BodyCx<'tcx>, v: ValueId, span: Span) {
        let region = self.value(v).view.clone();
        self.emit(
            b,
            Op::Read {
                value: v,
                region: region.clone(),
            },
            span,
        );
        self.emit(b, Op::Write { value: v, region }, span);
    }

    /// `offset`, written over the names of `callee`'s integer parameters (a summary's
    /// `returns_offset`), at this call: over what its arguments hold.
    fn callee_offset(&self, callee: DefId, offset: &Expr, args: &[Arg<'tcx>]) -> Option<Expr> {
        let params = self.tcx.fn_arg_idents(callee);
        let values: std::collections::BTreeMap<String, Expr> = offset
            .symbols()
            .into_iter()
            .map(|s| {
                let k = params
                    .iter()
                    .position(|p| p.is_some_and(|p| p.name.as_str() == s))?;
                let int = self.int_of(args.get(k)?.value?)?;
                Some((s, int))
            })
            .collect::<Option<_>>()?;
        Some(offset.map_symbols(&|s| values.get(s).cloned()))
    }

    /// The memory a struct value reaches, as one root (what a callee's summary means by
    /// "the memory of parameter `n`" when `n` is a struct): the one part of it that holds
    /// memory, or, for the caller's object, a root of its own standing for all it holds.
    pub(crate) fn struct_memory(
        &mut self,
        _b: &BodyCx<'tcx>,
        v: ValueId,
        span: Span,
    ) -> Option<ValueId> {
        let v = self.pointees.get(&v).copied().unwrap_or(v);
        let v = self.canonical(v);
        if let [one] = self.memory_parts(v).as_slice() {
            return Some(*one);
        }
        let index = self.param_structs.get(&v).copied()?;
        if let Some(&memory) = self.object_memory.get(&index) {
            return Some(memory);
        }
        let name = self.display_name(v);
        let root = self.caller_root(&format!("{name}'s buffer"), index, self.tcx.types.u8, span);
        let memory = self.new_value(Some(name), ValueKind::View(root), TyClass::Unknown, span);
        self.value_mut(memory).view = Some(View {
            root,
            elem_bytes: self.roots[root.0 as usize].elem_bytes,
            offset: Expr::int(0),
            dims: Vec::new(),
        });
        self.object_memory.insert(index, memory);
        Some(memory)
    }

    /// A constructor of the standard library that wraps the one value it is given
    /// (`RefCell::new(x)`, `Cell::new(x)`, `Mutex::new(x)`): the result holds `x`, as a
    /// struct holds its fields, so what it is returned or stored with goes along.
    fn wrapped(
        &mut self,
        func: &mir::Operand<'tcx>,
        args: &[Arg<'tcx>],
        dst: ValueId,
        dest_ty: Ty<'tcx>,
    ) {
        let [Arg {
            value: Some(v), ty, ..
        }] = args
        else {
            return;
        };
        let std = func.const_fn_def().is_some_and(|(d, _)| {
            matches!(
                self.tcx.crate_name(d.krate).as_str(),
                "core" | "alloc" | "std"
            )
        });
        let holds = match dest_ty.kind() {
            ty::Adt(_, generics) => generics.types().any(|t| t == *ty),
            _ => false,
        };
        if std && holds && !ty.is_ref() {
            self.set_field(dst, 0, 0, *v);
        }
    }

    /// A call nothing is known of: it may keep an owner or raw pointer it is given.
    pub(crate) fn unknown_call(
        &mut self,
        b: &BodyCx<'tcx>,
        name: &str,
        args: &[Arg<'tcx>],
        dst: ValueId,
        span: Span,
    ) {
        let values: Vec<ValueId> = args.iter().filter_map(|a| a.value).collect();
        self.emit(
            b,
            Op::Call {
                dst: Some(dst),
                callee: Callee::Unknown(name.to_string()),
                args: values,
            },
            span,
        );
        // The number of worker threads (`rayon::current_num_threads()`): sizes made
        // from it are per thread.
        if tensor_lint_analyzer::models::is_thread_count_call(name) {
            self.value_mut(dst).int = Some(Expr::sym(tensor_lint_analyzer::models::THREAD_COUNT));
        }
        self.pass_on(b, name, args, span);
        // A pointer variable handed over as `&mut p` (an out-parameter) may hold another
        // pointer afterwards, to memory nothing here knows of.
        for a in args {
            let Some(slot) = a.value.and_then(|v| self.pointees.get(&v).copied()) else {
                continue;
            };
            let mutable = matches!(
                a.ty.kind(),
                ty::Ref(_, _, ty::Mutability::Mut) | ty::RawPtr(_, ty::Mutability::Mut)
            );
            if mutable && self.value(slot).ty == TyClass::RawPtr {
                let root = self.slot_root(slot, RootOrigin::Unknown, ReleasedBy::NotOwned, span);
                self.emit(b, Op::Load { dst: slot, root }, span);
                self.nulls.remove(&slot);
            }
        }
        // Closures handed to code this lowering does not follow run there; in a
        // producer's piece, one a `map` holds runs where its items are handed on.
        for a in args {
            if let Some(ValueKind::Closure(body)) = a.value.map(|v| self.value(v).kind.clone()) {
                let deferred = self.producer.is_some()
                    && self.mapped_closures.values().any(|&(_, m)| m == body);
                if !deferred {
                    self.lower_pending_closure(body, &[]);
                }
            }
        }
    }

    /// A root for what variable `slot` comes to hold through a pointer to it (an
    /// out-parameter, a swap), named after the variable, of the elements its type reaches.
    pub(crate) fn slot_root(
        &mut self,
        slot: ValueId,
        origin: RootOrigin,
        released_by: ReleasedBy,
        span: Span,
    ) -> tensor_lint_analyzer::ir::RootId {
        let name = self.display_name(slot);
        let elem = self
            .value_types
            .get(&slot)
            .and_then(|t| types::element_of(self.tcx, *t))
            .unwrap_or(self.tcx.types.u8);
        self.new_root(&name, origin, elem, released_by, span)
    }

    /// Variable `slot` holds, from here on, memory that was elsewhere: a root of its own
    /// that this function does not owe.
    fn reload(&mut self, b: &BodyCx<'tcx>, slot: ValueId, span: Span) {
        let root = self.slot_root(slot, RootOrigin::Unknown, ReleasedBy::NotOwned, span);
        self.emit(b, Op::Load { dst: slot, root }, span);
        self.nulls.remove(&slot);
        let kind = match self.value(slot).ty {
            TyClass::RawPtr => ValueKind::RawPtr(Some(root)),
            _ => ValueKind::Root(root),
        };
        self.value_mut(slot).kind = kind;
        self.value_mut(slot).view = None;
    }

    /// Memory with a release owed (or a raw pointer the caller handed in) given to code
    /// this function cannot see: that code may keep it.
    fn pass_on(&mut self, b: &BodyCx<'tcx>, name: &str, args: &[Arg<'tcx>], span: Span) {
        for a in args {
            let Some(v) = a.value else { continue };
            let kind = self.value(v).kind.clone();
            let Some(root) = kind.root() else { continue };
            let r = &self.roots[root.0 as usize];
            let owned = matches!(kind, ValueKind::Root(_) | ValueKind::RawPtr(Some(_)));
            let obligation = r.released_by.is_owed()
                || matches!(kind, ValueKind::RawPtr(_)) && matches!(r.origin, RootOrigin::Param(_));
            if owned && obligation {
                self.emit(
                    b,
                    Op::Escape {
                        value: v,
                        how: EscapeKind::PassedOn(name.to_string()),
                    },
                    span,
                );
            }
        }
    }

    /// The size of a tensor parameter, whose rank the types do not say, as one symbol
    /// of its name (`state.numel`): a copy of it has that many elements.
    fn tensor_param_size(&self, v: ValueId) -> Option<Expr> {
        let root = &self.roots[self.value(v).kind.root()?.0 as usize];
        let plain = root.name.chars().all(|c| c.is_alphanumeric() || c == '_');
        (self.value(v).ty == TyClass::Tensor
            && matches!(root.origin, RootOrigin::Param(_))
            && plain)
            .then(|| {
                Expr::sym(&tensor_lint_analyzer::models::tensor_size_symbol(
                    &root.name,
                ))
            })
    }

    /// A method call that made new memory (`x.mapv(f)`, `t.relu()`): the root is that
    /// op's result, for the lints that relate it to its operands.
    fn record_producer(
        &mut self,
        b: &BodyCx<'tcx>,
        def_id: rustc_hir::def_id::DefId,
        args: &[Arg<'tcx>],
        dst: ValueId,
        roots_before: usize,
        span: Span,
    ) {
        let tcx = self.tcx;
        if tcx.def_kind(def_id) != rustc_hir::def::DefKind::AssocFn
            || !tcx.associated_item(def_id).is_method()
        {
            return;
        }
        let holder = self.allocation_payload(dst).unwrap_or(dst);
        let Some(root) = self.value(holder).kind.root() else {
            return;
        };
        if (root.0 as usize) < roots_before {
            return;
        }
        let op = tcx.item_name(def_id).to_string();
        // An operand borrowed whole for the call (`&logits`, the receiver's autoref) is
        // the operand itself, and the borrow is part of the call.
        let operands: Vec<ValueId> = args.iter().filter_map(|a| a.value).collect();
        self.borrows_part_of_call(b, &operands, span);
        let inputs: Vec<ValueId> = operands
            .into_iter()
            .filter(|&v| self.value(v).kind.is_memory())
            .map(|v| self.borrowed_from(v))
            .collect();
        // candle's tensors are immutable but for custom ops: no op has an in-place form.
        let immutable = args
            .first()
            .is_some_and(|recv| immutable_tensors(tcx, recv.ty));
        let op_span = self.method_name_span(span, &op).unwrap_or(span);
        self.roots[root.0 as usize].producer = Some(tensor_lint_analyzer::ir::Producer {
            inplace_form: tensor_lint_analyzer::models::inplace_form(&op)
                .filter(|_| !immutable)
                .map(str::to_string),
            saves_output: tensor_lint_analyzer::models::saves_output(&op),
            op,
            inputs,
            op_span,
            lhs_ref: None,
        });
    }

    /// `a - b`, `&a * &b`, ... on arrays or tensors: new memory shaped like the memory
    /// operand, computed from both, except for an ndarray array taken by value on the
    /// left, whose buffer the result reuses. Returns whether the call was lowered here.
    fn operator_call(
        &mut self,
        b: &BodyCx<'tcx>,
        func: &mir::Operand<'tcx>,
        args: &[Arg<'tcx>],
        dst: ValueId,
        dest_ty: Ty<'tcx>,
        span: Span,
    ) -> bool {
        use rustc_attr_ir::LangItem;
        let tcx = self.tcx;
        let Some((def_id, _)) = func.const_fn_def() else {
            return false;
        };
        let Some(trait_id) = tcx.trait_of_assoc(def_id) else {
            return false;
        };
        const OPERATORS: [(LangItem, &str); 5] = [
            (LangItem::Add, "+"),
            (LangItem::Sub, "-"),
            (LangItem::Mul, "*"),
            (LangItem::Div, "/"),
            (LangItem::Rem, "%"),
        ];
        let Some(&(_, op)) = OPERATORS
            .iter()
            .find(|(item, _)| tcx.is_lang_item(trait_id, *item))
        else {
            return false;
        };
        let result_ty = self.payload(dest_ty).map_or(dest_ty, |(_, t)| t);
        let class = types::class_of(tcx, result_ty);
        if !matches!(class, TyClass::Array | TyClass::Tensor) {
            return false;
        }
        let [lhs, rhs] = args else {
            return false;
        };
        let (Some(l), Some(r)) = (lhs.value, rhs.value) else {
            return false;
        };
        for v in [l, r] {
            if self.value(v).kind.is_memory() {
                self.emit(
                    b,
                    Op::Read {
                        value: v,
                        region: None,
                    },
                    span,
                );
            }
        }
        // ndarray's `a - x` with `a` owned writes into `a`'s buffer and returns it.
        let lhs_owned = !lhs.ty.is_ref()
            && class == TyClass::Array
            && matches!(self.value(l).kind, ValueKind::Root(_));
        if lhs_owned {
            self.emit(
                b,
                Op::Write {
                    value: l,
                    region: None,
                },
                span,
            );
            self.copy_value(b, dst, l, span);
            return true;
        }
        let shape = [l, r]
            .into_iter()
            .find_map(|v| self.value(v).view.as_ref().map(View::shape));
        let roots_before = self.roots.len();
        let holder = self.held_allocation(b, dst, dest_ty, ReleasedBy::Drop, shape, span);
        let Some(root) = self
            .value(holder)
            .kind
            .root()
            .filter(|r| r.0 as usize >= roots_before)
        else {
            return true;
        };
        // The `&` of a left operand written borrowed (`&x - m`), and the operator.
        let borrow_span = self.bodies[b.id.0 as usize].blocks[b.cur.0 as usize]
            .stmts
            .iter()
            .find(|s| matches!(s.op, Op::View { dst, .. } if dst == l))
            .map(|s| s.span);
        let text = |s: Span| self.cx.files.text(s).map(str::to_string);
        let lhs_ref = borrow_span
            .filter(|&s| lhs.ty.is_ref() && text(s).is_some_and(|t| t.starts_with('&')))
            .map(|s| Span::new(s.file, s.lo as usize, s.lo as usize + 1));
        let after_lhs = borrow_span.map_or(span.lo, |s| s.hi.max(span.lo));
        let op_span = text(Span::new(span.file, after_lhs as usize, span.hi as usize))
            .and_then(|t| t.find(op))
            .map(|k| {
                Span::new(
                    span.file,
                    after_lhs as usize + k,
                    after_lhs as usize + k + 1,
                )
            })
            .unwrap_or(span);
        // The operands' borrows are part of the operation.
        let (lo, ro) = (self.borrowed_from(l), self.borrowed_from(r));
        self.borrows_part_of_call(b, &[l, r], span);
        self.roots[root.0 as usize].producer = Some(tensor_lint_analyzer::ir::Producer {
            op: op.to_string(),
            inputs: vec![lo, ro],
            op_span,
            lhs_ref,
            inplace_form: tensor_lint_analyzer::models::inplace_form(op)
                .filter(|_| !immutable_tensors(tcx, result_ty))
                .map(str::to_string),
            saves_output: tensor_lint_analyzer::models::saves_output(op),
        });
        self.roots[root.0 as usize].allocated_by = Some(op.to_string());
        true
    }

    /// The variable `v` borrows whole for a call (`x` for the autoref of `x.relu_()`):
    /// back through whole views of the same name, or unnamed.
    fn borrowed_from(&self, mut v: ValueId) -> ValueId {
        while let Some(&src) = self.whole_views.get(&v) {
            let (name, source) = (&self.value(v).name, &self.value(src).name);
            if name.is_some() && name != source {
                break;
            }
            v = src;
        }
        v
    }

    /// The whole borrows that made `operands` (the autoref of a receiver, `&x` of an
    /// operand) are part of the call at `span`, and take its span.
    fn borrows_part_of_call(&mut self, b: &BodyCx<'tcx>, operands: &[ValueId], span: Span) {
        let mut borrows: Vec<ValueId> = Vec::new();
        for &operand in operands {
            let owner = self.borrowed_from(operand);
            let mut v = operand;
            while v != owner {
                borrows.push(v);
                match self.whole_views.get(&v) {
                    Some(&src) => v = src,
                    None => break,
                }
            }
        }
        if let Some(block) = self
            .bodies
            .get_mut(b.id.0 as usize)
            .and_then(|body| body.blocks.get_mut(b.cur.0 as usize))
        {
            for stmt in &mut block.stmts {
                if matches!(stmt.op, Op::View { dst, .. } if borrows.contains(&dst)) {
                    stmt.span = span;
                }
            }
        }
    }

    /// Whether `v`, of type `ty`, is a reference to a slice, array or vector of numbers,
    /// one dimension of them, whose iterator gives references to the elements in order.
    /// (Elements that are pointers or owners are values the item holds, not places.)
    fn walks_elements(&self, ty: Ty<'tcx>, v: ValueId) -> bool {
        let ty::Ref(_, target, _) = ty.kind() else {
            return false;
        };
        let elem = match target.kind() {
            ty::Slice(elem) | ty::Array(elem, _) => Some(*elem),
            ty::Adt(_, args) if types::adt_is(self.tcx, *target, "alloc", "Vec") => {
                args.types().next()
            }
            _ => None,
        };
        let numbers = elem.is_some_and(|e| e.is_integral() || e.is_floating_point() || e.is_bool());
        numbers
            && self.value(v).kind.is_memory()
            && self
                .value(v)
                .view
                .as_ref()
                .is_some_and(|view| view.dims.len() == 1)
    }

    /// The element `index` (an array or tuple of integers, one per axis) picks in
    /// `view`, when every index is known and there is one per axis.
    fn multi_index(&self, index: ValueId, ty: Ty<'tcx>, view: Option<&View>) -> Option<View> {
        let count = match ty.kind() {
            ty::Array(elem, len) if elem.is_integral() => {
                len.try_to_target_usize(self.tcx).map(|n| n as usize)?
            }
            ty::Tuple(parts) if parts.iter().all(|t| t.is_integral()) => parts.len(),
            _ => return None,
        };
        let mut element = view?.clone();
        if element.dims.len() != count {
            return None;
        }
        for k in 0..count {
            let i = self
                .field_of(index, 0, k as u32)
                .and_then(|v| self.int_of(v))?;
            element = element.index(0, i)?;
        }
        Some(element)
    }

    /// The payload of an `Ok`/`Some` that [`Self::allocation_holder`] put new memory in.
    fn allocation_payload(&self, dst: ValueId) -> Option<ValueId> {
        let ty = *self.value_types.get(&dst)?;
        let (variant, _) = self.payload(ty)?;
        self.field_of(dst, variant, 0)
    }

    /// Where the method name `method` is written in the call at `span` (`relu` in
    /// `logits.relu()`).
    fn method_name_span(&self, span: Span, method: &str) -> Option<Span> {
        let text = self.cx.files.text(span)?;
        let dot = text.rfind(&format!(".{method}"))?;
        let lo = span.lo as usize + dot + 1;
        Some(Span::new(span.file, lo, lo + method.len()))
    }

    /// Where new memory a call returns is held: the call's result, or its `Ok` or
    /// `Some` payload when it returns a `Result` or an `Option`.
    pub(crate) fn allocation_holder(
        &mut self,
        dst: ValueId,
        dest_ty: Ty<'tcx>,
        span: Span,
    ) -> (ValueId, Ty<'tcx>) {
        let Some((variant, payload_ty)) = self.payload(dest_ty) else {
            return (dst, dest_ty);
        };
        let class = types::class_of(self.tcx, payload_ty);
        let payload = self.new_value(None, ValueKind::Unknown, class, span);
        self.value_types.insert(payload, payload_ty);
        self.set_field(dst, variant, 0, payload);
        self.variant_payloads.insert(payload);
        (payload, payload_ty)
    }

    /// New memory a call returns, in its result or in the `Ok`/`Some` payload of it (see
    /// `allocation_holder`), released as `released_by`: the value that holds it.
    pub(crate) fn held_allocation(
        &mut self,
        b: &BodyCx<'tcx>,
        dst: ValueId,
        dest_ty: Ty<'tcx>,
        released_by: ReleasedBy,
        shape: Option<Vec<Expr>>,
        span: Span,
    ) -> ValueId {
        let (holder, ty) = self.allocation_holder(dst, dest_ty, span);
        self.new_allocation(b, holder, ty, released_by, shape, span);
        holder
    }

    /// The function a call at `span` names, as the user wrote it without generic
    /// arguments: `Array2::zeros` for `Array2::<f32>::zeros((h, w))`, `to_owned` for
    /// `x.to_owned()`, `vec!` for a `vec![..]`.
    fn written_callee(&self, span: Span) -> Option<String> {
        let text = self.cx.files.text(span)?;
        if let Some(name) = text.split_once('!').map(|(name, _)| name.trim()) {
            if !name.is_empty()
                && name
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == ':')
            {
                return Some(format!("{name}!"));
            }
        }
        let mut depth = 0i32;
        let mut callee = String::new();
        for c in text.chars() {
            match c {
                '<' => depth += 1,
                '>' => depth -= 1,
                '(' if depth == 0 => break,
                _ if depth == 0 => callee.push(c),
                _ => {}
            }
        }
        let callee = callee.replace("::::", "::");
        let callee = callee.trim().trim_end_matches("::");
        // A method call: what follows the receiver.
        let callee = callee.rsplit_once('.').map_or(callee, |(_, m)| m).trim();
        let plain = !callee.is_empty()
            && callee
                .chars()
                .all(|c| c.is_alphanumeric() || c == '_' || c == ':');
        plain.then(|| callee.to_string())
    }

    /// `dst` is new memory of type `ty` (or of `elems` elements of the type's element),
    /// released as `released_by`.
    pub(crate) fn new_allocation(
        &mut self,
        b: &BodyCx<'tcx>,
        dst: ValueId,
        ty: Ty<'tcx>,
        released_by: ReleasedBy,
        shape: Option<Vec<Expr>>,
        span: Span,
    ) {
        let elem = types::element_of(self.tcx, ty).unwrap_or(ty);
        let name = self.value(dst).name.clone();
        let root = self.new_root(
            name.as_deref().unwrap_or("buffer"),
            RootOrigin::Alloc,
            elem,
            released_by,
            span,
        );
        if name.is_none() {
            self.unnamed_roots.insert(root);
        }
        let elem_bytes = self.roots[root.0 as usize].elem_bytes;
        self.roots[root.0 as usize].shape = shape.clone();
        let size = shape
            .as_ref()
            .map(|s| s.iter().fold(Expr::int(1), |acc, d| &acc * d));
        self.emit(b, Op::Alloc { dst, root, size }, span);
        let kind = match self.value(dst).ty {
            TyClass::RawPtr => ValueKind::RawPtr(Some(root)),
            _ => ValueKind::Root(root),
        };
        // A vector of a length not known here is still one length: a symbol of its name.
        let shape = shape.or_else(|| {
            let vector = matches!(self.value(dst).ty, TyClass::Vec | TyClass::Slice)
                && !matches!(elem.kind(), ty::RawPtr(..) | ty::Ref(..));
            name.as_ref()
                .filter(|_| vector)
                .map(|n| vec![Expr::sym(&format!("{n}.len"))])
        });
        let view = shape.map(|s| View::contiguous(root, elem_bytes, s));
        self.define(dst, kind, view);
    }

    /// A call to a modelled library function.
    fn model_call(
        &mut self,
        b: &mut BodyCx<'tcx>,
        sem: Sem,
        call: &ModelCall<'_, 'tcx>,
        span: Span,
    ) {
        let ModelCall {
            name,
            args,
            generics,
            dst,
            dest_ty,
        } = *call;
        // A modelled call is what its model says and nothing more: no opaque call that
        // might keep what it is given.
        let arg = |i: usize| args.get(i).and_then(|a| a.value);
        let values: Vec<ValueId> = args.iter().filter_map(|a| a.value).collect();
        match sem {
            Sem::Alloc(ctor) => {
                let shape = match ctor {
                    Ctor::Len(i) => arg(i).and_then(|v| self.int_of(v)).map(|n| vec![n]),
                    Ctor::Shape(i) => arg(i).and_then(|v| self.shape_of(v)),
                    Ctor::Like(i) => arg(i).and_then(|v| {
                        let shape = self.value(v).view.as_ref().map(View::shape);
                        shape
                            .filter(|s| !s.is_empty())
                            .or_else(|| self.tensor_param_size(v).map(|n| vec![n]))
                    }),
                    Ctor::Empty => Some(vec![Expr::int(0)]),
                    Ctor::Literal(_) | Ctor::Unknown => None,
                };
                // A copy reads what it copies.
                if let Ctor::Like(i) = ctor {
                    if let Some(v) = arg(i).filter(|&v| self.value(v).kind.is_memory()) {
                        self.emit(
                            b,
                            Op::Read {
                                value: v,
                                region: None,
                            },
                            span,
                        );
                    }
                }
                let holder = self.held_allocation(b, dst, dest_ty, ReleasedBy::Drop, shape, span);
                if let Some(root) = self.value(holder).kind.root() {
                    let written = self.written_callee(span);
                    self.roots[root.0 as usize].allocated_by =
                        Some(written.unwrap_or_else(|| short_path(name)));
                    self.roots[root.0 as usize].uninit = UNINIT_ALLOCATORS.contains(&name);
                }
            }
            // A user's `effect = "alloc"` row: memory a modelled release must free,
            // returned or stored through an out-parameter.
            Sem::OwedAlloc => {
                let release = ReleasedBy::Function(self.cx.models.user_release_name());
                let holder = self.held_allocation(b, dst, dest_ty, release, None, span);
                if let Some(root) = self.value(holder).kind.root() {
                    self.roots[root.0 as usize].allocated_by = Some(name.to_string());
                }
            }
            Sem::OwedAllocInto(out) => {
                let release = self.cx.models.user_release_name();
                self.made_through(b, args.get(out), release, span);
            }
            Sem::RawAlloc => {
                let uninit = UNINIT_ALLOCATORS.contains(&name);
                let layout = arg(0).and_then(|l| self.layouts.get(&l).cloned());
                let name = self
                    .value(dst)
                    .name
                    .clone()
                    .unwrap_or_else(|| "block".into());
                let root = self.new_root(
                    &name,
                    RootOrigin::Alloc,
                    self.tcx.types.u8,
                    ReleasedBy::Dealloc,
                    span,
                );
                self.roots[root.0 as usize].uninit = uninit;
                let size = layout.as_ref().map(|(_, count)| count.clone());
                if let Some((elem_bytes, count)) = layout {
                    let r = &mut self.roots[root.0 as usize];
                    r.elem_bytes = elem_bytes;
                    r.shape = Some(vec![count]);
                }
                self.emit(b, Op::Alloc { dst, root, size }, span);
                let elem_bytes = self.roots[root.0 as usize].elem_bytes;
                let view = View {
                    root,
                    elem_bytes,
                    offset: Expr::int(0),
                    dims: Vec::new(),
                };
                self.define(dst, ValueKind::RawPtr(Some(root)), Some(view));
            }
            Sem::Realloc => {
                if let Some(p) = arg(0) {
                    self.emit(
                        b,
                        Op::Release {
                            value: p,
                            how: ReleaseKind::Dealloc,
                        },
                        span,
                    );
                }
                self.new_allocation(b, dst, dest_ty, ReleasedBy::Dealloc, None, span);
            }
            Sem::Layout(ctor) => {
                let elem = match ctor {
                    LayoutCtor::SizeAlign => Some(1),
                    _ => generics
                        .types()
                        .next()
                        .and_then(|t| types::size_of(self.tcx, self.env, t)),
                };
                let count = match ctor {
                    LayoutCtor::Array | LayoutCtor::SizeAlign => {
                        arg(0).and_then(|v| self.int_of(v))
                    }
                    LayoutCtor::One => Some(Expr::int(1)),
                };
                if let (Some(elem), Some(count)) = (elem.and_then(|e| u32::try_from(e).ok()), count)
                {
                    self.layouts.insert(dst, (elem.max(1), count));
                }
            }
            Sem::Release(how, i) => {
                let Some(v) = arg(i) else { return };
                match how {
                    ReleaseHow::Drop => {
                        let ty = args[i].ty;
                        self.drop_value(b, v, ty, ReleaseKind::Drop, span);
                    }
                    ReleaseHow::BoxFromRaw => {
                        // The owner built: `Box`, `Vec`, `String`, `CString`.
                        let owner = match dest_ty.ty_adt_def() {
                            Some(adt) if !adt.is_box() => self.tcx.item_name(adt.did()).to_string(),
                            _ => "Box".to_string(),
                        };
                        self.emit(
                            b,
                            Op::Release {
                                value: v,
                                how: ReleaseKind::FromRaw(owner),
                            },
                            span,
                        );
                        // The new owner frees the memory when it is dropped.
                        let view = self.value(v).view.clone();
                        self.derive(b, dst, v, ViewOp::Whole, view, span);
                        if let Some(root) = self.value(v).kind.root() {
                            self.value_mut(dst).kind = ValueKind::Root(root);
                        }
                    }
                    ReleaseHow::Dealloc => self.emit(
                        b,
                        Op::Release {
                            value: v,
                            how: ReleaseKind::Dealloc,
                        },
                        span,
                    ),
                    // Dropping in place frees the heap memory the dropped value owns: of
                    // a vector, its buffer; of a slice of elements, only what they own.
                    ReleaseHow::DropInPlace
                        if !generics
                            .types()
                            .next()
                            .is_some_and(|t| types::owns_memory(self.tcx, t)) => {}
                    ReleaseHow::DropInPlace | ReleaseHow::Function => self.emit(
                        b,
                        Op::Release {
                            value: v,
                            how: ReleaseKind::Function(name.to_string()),
                        },
                        span,
                    ),
                }
            }
            Sem::Leak(kind, i) => {
                let Some(v) = arg(i) else { return };
                if !self.value(v).kind.is_memory() {
                    if kind == LeakKind::Forget {
                        self.forget_fields(b, v, args[i].ty, name, span);
                    }
                    return;
                }
                self.emit(
                    b,
                    Op::Escape {
                        value: v,
                        how: EscapeKind::Leaked {
                            api: name.to_string(),
                            kind,
                        },
                    },
                    span,
                );
                if kind != LeakKind::Forget {
                    let view = self.value(v).view.clone();
                    self.derive(b, dst, v, ViewOp::Whole, view, span);
                }
            }
            Sem::Wrap(WrapKind::Heap) => {
                let Some(v) = arg(0) else {
                    self.new_allocation(b, dst, dest_ty, ReleasedBy::Drop, None, span);
                    return;
                };
                let heap_owner = self.value(v).kind.root().is_some_and(|r| {
                    let root = &self.roots[r.0 as usize];
                    root.origin != RootOrigin::Static && root.released_by == ReleasedBy::Drop
                });
                if heap_owner {
                    self.copy_value(b, dst, v, span);
                } else {
                    let shape = self.value(v).view.as_ref().map(View::shape);
                    self.new_allocation(b, dst, dest_ty, ReleasedBy::Drop, shape, span);
                }
            }
            Sem::Wrap(WrapKind::ManuallyDrop) => {
                let Some(v) = arg(0) else { return };
                if self.value(v).kind.is_memory() {
                    self.emit(
                        b,
                        Op::Escape {
                            value: v,
                            how: EscapeKind::Leaked {
                                api: name.to_string(),
                                kind: LeakKind::Forget,
                            },
                        },
                        span,
                    );
                    let view = self.value(v).view.clone();
                    self.derive(b, dst, v, ViewOp::Whole, view, span);
                }
            }
            Sem::Wrap(WrapKind::Pin) | Sem::Transparent => {
                // A value put in an `Option` (`NonNull::new(p)`): it is the payload.
                let wraps = self.payload(dest_ty).filter(|_| {
                    args.first()
                        .is_some_and(|a| self.payload(a.ty).is_none() && !a.ty.is_ref())
                });
                if let (Some((variant, payload_ty)), Some(v)) = (wraps, arg(0)) {
                    let class = types::class_of(self.tcx, payload_ty);
                    let payload = self.new_value(None, ValueKind::Unknown, class, span);
                    self.value_types.insert(payload, payload_ty);
                    self.copy_value(b, payload, v, span);
                    self.set_field(dst, variant, 0, payload);
                    // `NonNull::new(p)` is `None` where `p` is null.
                    if args[0].ty.is_raw_ptr() && variant == 1 {
                        self.null_variants.insert(dst, (v, 0));
                    }
                    return;
                }
                if let Some(v) = arg(0) {
                    // What `Some(x)` or `Ok(x)` holds, when it was built here.
                    let payload = self.field_of(v, 1, 0).or_else(|| self.field_of(v, 0, 0));
                    let held = payload.filter(|&p| self.value(p).kind.is_memory());
                    self.copy_value(b, dst, held.unwrap_or(v), span);
                }
            }
            // A view returned in a `Result` (candle's `t.narrow(..)?`) is its `Ok`.
            Sem::View(kind) => {
                let holder = match self.payload(dest_ty) {
                    Some(_) => self.allocation_holder(dst, dest_ty, span).0,
                    None => dst,
                };
                self.view_call(b, kind, args, holder, span)
            }
            // A view of argument `n` somewhere in it (`CStr::from_ptr(p)`): it borrows,
            // keeps and frees nothing.
            Sem::ViewOfArg(n) => {
                if let Some(src) = arg(n).filter(|&v| self.value(v).kind.is_memory()) {
                    let short = name.rsplit("::").next().unwrap_or(name).to_string();
                    self.derive(b, dst, src, ViewOp::Opaque(short), None, span);
                }
            }
            // candle's `t.slice_set(&src, dim, start)`: the part of `t` that `src`
            // covers, from `start` on axis `dim`, is overwritten from `src`.
            Sem::SliceSet => {
                let (Some(dst), Some(src)) = (
                    arg(0).filter(|&v| self.value(v).kind.is_memory()),
                    arg(1).filter(|&v| self.value(v).kind.is_memory()),
                ) else {
                    return;
                };
                let int = |this: &Self, k: usize| arg(k).and_then(|v| this.int_of(v));
                let axis = int(self, 2)
                    .and_then(|e| e.as_const())
                    .and_then(|c| usize::try_from(c).ok());
                let how = ViewOp::slice_set(axis, int(self, 3), self.value(src).view.as_ref())
                    .unwrap_or_else(|| ViewOp::Opaque(name.to_string()));
                let view = self
                    .value(dst)
                    .view
                    .as_ref()
                    .and_then(|v| geometry::apply(v, &how));
                let class = self.value(dst).ty;
                let part = self.new_value(None, ValueKind::Unknown, class, span);
                self.derive(b, part, dst, how, view, span);
                self.emit(
                    b,
                    Op::Read {
                        value: src,
                        region: None,
                    },
                    span,
                );
                self.emit(
                    b,
                    Op::Write {
                        value: part,
                        region: None,
                    },
                    span,
                );
            }
            Sem::RawPtr => {
                if let Some(src) = arg(0) {
                    let view = self.value(src).view.as_ref().map(|v| View {
                        dims: Vec::new(),
                        ..v.clone()
                    });
                    self.derive(b, dst, src, ViewOp::Whole, view, span);
                }
            }
            Sem::PtrStep(sign) => {
                let (Some(p), n) = (arg(0), arg(1).and_then(|v| self.int_of(v))) else {
                    return;
                };
                match n {
                    Some(n) => {
                        let n = if sign < 0 { &Expr::int(0) - &n } else { n };
                        let view = self.value(p).view.as_ref().map(|v| shifted(v, &n));
                        self.derive(b, dst, p, ViewOp::Offset(n), view, span);
                    }
                    None => self.derive(b, dst, p, ViewOp::Opaque(name.to_string()), None, span),
                }
            }
            Sem::FromRawParts => {
                let (Some(p), len) = (arg(0), arg(1).and_then(|v| self.int_of(v))) else {
                    return;
                };
                let view = match (&len, self.value(p).view.as_ref()) {
                    (Some(len), Some(v)) => Some(with_len(v, len.clone())),
                    _ => None,
                };
                let shape = len.into_iter().collect();
                self.derive(
                    b,
                    dst,
                    p,
                    ViewOp::FromRaw {
                        shape,
                        strides: None,
                    },
                    view.clone(),
                    span,
                );
                if matches!(dest_ty.kind(), ty::Ref(_, _, ty::Mutability::Mut)) {
                    self.emit(
                        b,
                        Op::Claim {
                            value: dst,
                            region: view,
                        },
                        span,
                    );
                }
            }
            // faer's `MatMut::from_raw_parts_mut(p, rows, cols, row_stride, col_stride)`,
            // nalgebra's `from_slice_with_strides_mut(data, rows, cols, rstride, cstride)`.
            Sem::FromStrided => {
                let Some(p) = arg(0).filter(|&p| self.value(p).kind.is_memory()) else {
                    return;
                };
                let int = |this: &Self, k: usize| arg(k).and_then(|v| this.int_of(v));
                let how = match (int(self, 1), int(self, 2), int(self, 3), int(self, 4)) {
                    (Some(rows), Some(cols), Some(rs), Some(cs)) => ViewOp::FromRaw {
                        shape: vec![rows, cols],
                        strides: Some(vec![rs, cs]),
                    },
                    _ => ViewOp::Opaque("from_raw".into()),
                };
                let view = self
                    .value(p)
                    .view
                    .as_ref()
                    .and_then(|v| geometry::apply(v, &how));
                self.derive(b, dst, p, how, view, span);
            }
            Sem::FromShapePtr => {
                let (Some(shape_v), Some(p)) = (arg(0), arg(1)) else {
                    return;
                };
                // A shape, or a shape with strides (`(n, m).strides((s, 1))`).
                let (shape, strides) = match self.shape_strides.get(&shape_v).cloned() {
                    Some((shape, strides)) => (Some(shape), Some(strides)),
                    None => (self.shape_of(shape_v), None),
                };
                let how = ViewOp::FromRaw {
                    shape: shape.clone().unwrap_or_default(),
                    strides,
                };
                let view = match (&shape, self.value(p).view.as_ref()) {
                    (Some(_), Some(v)) => geometry::apply(v, &how),
                    _ => None,
                };
                self.derive(b, dst, p, how, view, span);
            }
            Sem::ShapeStrides => {
                let (Some(shape_v), Some(strides_v)) = (arg(0), arg(1)) else {
                    return;
                };
                if let (Some(shape), Some(strides)) =
                    (self.shape_of(shape_v), self.shape_of(strides_v))
                {
                    if shape.len() == strides.len() {
                        self.shape_strides.insert(dst, (shape, strides));
                    }
                }
            }
            Sem::PtrRead | Sem::BitCopy(_) => {
                if let Some(p) = arg(0) {
                    let region = self.value(p).view.clone();
                    self.emit(b, Op::Read { value: p, region }, span);
                    // A bitwise copy of an owner owns the same memory.
                    if types::owns_memory(self.tcx, dest_ty) {
                        if let Some(root) = self.value(p).kind.root() {
                            self.emit(b, Op::Assign { dst, src: p }, span);
                            let view = self.value(p).view.clone();
                            self.define(dst, ValueKind::Root(root), view);
                        }
                    }
                }
            }
            Sem::PtrWrite => {
                if let Some(p) = arg(0) {
                    let region = self.value(p).view.clone();
                    let store = self.store_through(args[0].ty, p, region);
                    self.emit(b, store, span);
                }
                if let Some(v) = arg(1) {
                    if self.value(v).kind.is_memory() && args[1].moved {
                        self.emit(
                            b,
                            Op::Escape {
                                value: v,
                                how: EscapeKind::Stored,
                            },
                            span,
                        );
                    }
                }
            }
            Sem::Overwrite(i) | Sem::WriteArg(i) => {
                // The sources are read, then the destination written (for a whole
                // overwrite, `t.copy_(&s)`, `t.zero_()`, as a whole: no element-wise
                // write).
                let whole = matches!(sem, Sem::Overwrite(_));
                let memory: Vec<(usize, ValueId)> = args
                    .iter()
                    .enumerate()
                    .filter_map(|(k, a)| a.value.map(|v| (k, v)))
                    .filter(|&(_, v)| self.value(v).kind.is_memory())
                    .collect();
                for &(_, v) in memory.iter().filter(|(k, _)| *k != i) {
                    let region = self.value(v).view.clone().filter(|_| !whole);
                    self.emit(b, Op::Read { value: v, region }, span);
                }
                for &(_, v) in memory.iter().filter(|(k, _)| *k == i) {
                    let region = self.value(v).view.clone().filter(|_| !whole);
                    self.emit(b, Op::Write { value: v, region }, span);
                }
            }
            Sem::ReadArg(i) => {
                if let Some(v) = arg(i).filter(|&v| self.value(v).kind.is_memory()) {
                    let region = self.value(v).view.clone();
                    self.emit(b, Op::Read { value: v, region }, span);
                }
            }
            Sem::Read => {
                if let Some(v) = arg(0).filter(|&v| self.value(v).kind.is_memory()) {
                    let region = self.value(v).view.clone();
                    self.emit(b, Op::Read { value: v, region }, span);
                }
                // `collect()` into a vector: a new buffer of one element per item.
                if types::owns_memory(self.tcx, dest_ty) {
                    let len = arg(0).and_then(|v| self.iter_len(v));
                    self.new_allocation(
                        b,
                        dst,
                        dest_ty,
                        ReleasedBy::Drop,
                        len.map(|n| vec![n]),
                        span,
                    );
                }
            }
            Sem::InPlace(i) => {
                // A number updated through a reference (`a[0] += s` with `s: &f64`) is
                // a read and a write of that element, as the operator on two numbers is.
                let scalar = args.get(i).is_some_and(|a| {
                    a.ty.builtin_deref(true)
                        .is_some_and(|t| t.is_primitive() && !t.is_char())
                });
                if scalar {
                    if let Some(v) = arg(i).filter(|&v| self.value(v).kind.is_memory()) {
                        self.read_and_write(b, v, span);
                    }
                    for a in args.iter().skip(1) {
                        if let Some(v) = a.value.filter(|&v| self.value(v).kind.is_memory()) {
                            let region = self.value(v).view.clone();
                            self.emit(b, Op::Read { value: v, region }, span);
                        }
                    }
                    return;
                }
                if let Some(v) = arg(i).filter(|&v| self.value(v).kind.is_memory()) {
                    // The receiver borrowed for the call (`x.relu_()`) is `x` itself.
                    let v = self.borrowed_from(v);
                    let srcs = values
                        .iter()
                        .copied()
                        .filter(|&s| s != v && self.value(s).kind.is_memory())
                        .collect();
                    self.emit(
                        b,
                        Op::InPlace {
                            dst: v,
                            srcs,
                            // The method as written (`mapv_inplace`), not the row's path.
                            method: written_method(name),
                        },
                        span,
                    );
                    // tch's `t.relu_()` returns another handle of `t`'s storage.
                    if types::class_of(self.tcx, dest_ty) == TyClass::Tensor {
                        let view = self.value(v).view.clone();
                        self.derive(b, dst, v, ViewOp::Whole, view, span);
                    }
                }
            }
            Sem::StoreArg(i) => {
                // What is stored is kept there: the memory itself, or what a struct
                // stored whole holds in its fields (`v.push(Entry { packet, .. })`).
                let parts = arg(i).map(|v| self.memory_parts(v)).unwrap_or_default();
                for v in parts {
                    self.emit(
                        b,
                        Op::Escape {
                            value: v,
                            how: EscapeKind::Stored,
                        },
                        span,
                    );
                }
                // The receiver gets the value: it is written.
                if let Some(r) = arg(0).filter(|&r| self.value(r).kind.is_memory()) {
                    self.emit(
                        b,
                        Op::Write {
                            value: r,
                            region: None,
                        },
                        span,
                    );
                }
            }
            // The length changes, no element: nothing happens to memory, but from here
            // the function says which elements the vector owns.
            Sem::SetLen => {
                if let Some(v) = arg(0) {
                    let grows = arg(1)
                        .and_then(|n| self.value(n).int.clone())
                        .is_some_and(|n| longer(&n));
                    self.emit(b, Op::SetLen { value: v, grows }, span);
                }
            }
            Sem::Metadata(meta) => {
                let Some(v) = arg(0) else { return };
                let view = self.value(v).view.clone();
                let lens: Option<Vec<Expr>> =
                    view.map(|view| view.dims.iter().map(|d| d.len.clone()).collect());
                let int = match (meta, &lens) {
                    (Meta::Count, _) => self.length_of(v),
                    (Meta::Rows, Some(lens)) => lens.first().cloned(),
                    (Meta::Cols, Some(lens)) => lens.get(1).cloned(),
                    (Meta::Dim, Some(lens)) if lens.len() == 1 => lens.first().cloned(),
                    _ => None,
                };
                self.value_mut(dst).int = int;
                // `raw_dim()`, `shape()`, a `dim()` of several axes: every length, each
                // also a field of the tuple `dim()` gives (`let (h, w) = a.dim()`).
                if let (Meta::Shape | Meta::Dim, Some(lens)) = (meta, lens) {
                    if meta == Meta::Dim && lens.len() > 1 {
                        for (k, len) in lens.iter().enumerate() {
                            let part =
                                self.new_value(None, ValueKind::Scalar, TyClass::Scalar, span);
                            self.value_mut(part).int = Some(len.clone());
                            self.set_field(dst, 0, k as u32, part);
                        }
                    }
                    self.shapes.insert(dst, lens);
                }
            }
            // An atomic operation: never a race, but (all but a load) a write to the
            // atomic's cache line. What is stored in it is the atomic's to keep.
            Sem::Atomic(op) => {
                if let Some(v) = arg(0).filter(|&v| self.value(v).kind.is_memory()) {
                    self.emit(
                        b,
                        Op::Atomic {
                            value: v,
                            write: op != AtomicOp::Load,
                            inner: None,
                        },
                        span,
                    );
                }
                // A pointer loaded from an `AtomicPtr` (`(*node).next.load(..)`) is
                // read from memory: a block of its own, another one each time.
                let loaded = matches!(op, AtomicOp::Load | AtomicOp::Swap);
                if loaded && dest_ty.is_raw_ptr() {
                    let elem = types::element_of(self.tcx, dest_ty).unwrap_or(self.tcx.types.u8);
                    let name =
                        arg(0).map_or_else(|| "pointer".to_string(), |v| self.display_name(v));
                    let root =
                        self.new_root(&name, RootOrigin::Unknown, elem, ReleasedBy::NotOwned, span);
                    self.emit(b, Op::Load { dst, root }, span);
                    self.define(dst, ValueKind::RawPtr(Some(root)), None);
                }
                let stored = match op {
                    AtomicOp::Store | AtomicOp::Swap => arg(1),
                    AtomicOp::CompareExchange => arg(2),
                    AtomicOp::Load | AtomicOp::ReadModifyWrite => None,
                };
                if let Some(p) = stored.filter(|&p| self.value(p).kind.is_memory()) {
                    self.emit(
                        b,
                        Op::Escape {
                            value: p,
                            how: EscapeKind::Stored,
                        },
                        span,
                    );
                }
            }
            // `mem::swap(&mut a, &mut b)`: what each variable held goes to the other
            // place. An owner moved into memory elsewhere is kept there; the variable
            // now holds what was there before, which is not this function's to release.
            Sem::SwapPlaces => {
                let slots: Vec<Option<ValueId>> = args
                    .iter()
                    .take(2)
                    .map(|a| {
                        a.value.and_then(|v| {
                            let v = self.canonical(v);
                            self.pointees
                                .get(&v)
                                .or_else(|| self.borrowed_owners.get(&v))
                                .copied()
                        })
                    })
                    .collect();
                // References into memory (`mem::swap(&mut *a, &mut *b)`): both places
                // are read and written.
                for (a, slot) in args.iter().zip(&slots) {
                    let Some(v) = a
                        .value
                        .filter(|&v| slot.is_none() && self.value(v).kind.is_memory())
                    else {
                        continue;
                    };
                    self.read_and_write(b, v, span);
                }
                for slot in slots.into_iter().flatten() {
                    // A struct's owners go with it (`mem::swap(&mut table[i], &mut
                    // fresh)` stores what `fresh` was built with in the table); the
                    // variable now holds the other's fields, not known here.
                    let base = self.canonical(slot);
                    for part in self.memory_parts(base) {
                        if part != slot {
                            self.emit(
                                b,
                                Op::Escape {
                                    value: part,
                                    how: EscapeKind::Stored,
                                },
                                span,
                            );
                        }
                    }
                    self.fields.retain(|&(owner, _, _), _| owner != base);
                    if self.value(slot).kind.is_memory() {
                        self.emit(
                            b,
                            Op::Escape {
                                value: slot,
                                how: EscapeKind::Stored,
                            },
                            span,
                        );
                    }
                    self.reload(b, slot, span);
                }
            }
            Sem::TakeOut => {
                // The old value moves out into a new owner; another value stays behind.
                if types::owns_memory(self.tcx, dest_ty) {
                    self.new_allocation(b, dst, dest_ty, ReleasedBy::Drop, None, span);
                }
            }
            // Stored into a variable, a null pointer means the variable holds no
            // allocation on this path (whatever it held on others).
            Sem::NullPointer => self.store_null(b, dst, span),
            Sem::NullTest => {
                if let Some(p) = arg(0) {
                    self.null_tests.insert(dst, p);
                }
            }
            Sem::Join | Sem::Scope | Sem::Spawn | Sem::ThreadSpawn | Sem::Par(_) | Sem::ZipFrom => {
                self.parallel_call(b, sem, args, dst, span)
            }
            // `t.set_requires_grad(true)`: autograd records `t`'s storage from here on;
            // the handle returned is another handle of that storage.
            Sem::RequiresGrad => {
                let Some(v) = arg(0).filter(|&v| self.value(v).kind.is_memory()) else {
                    return;
                };
                let on = !matches!(
                    arg(1)
                        .and_then(|f| self.int_of(f))
                        .and_then(|e| e.as_const()),
                    Some(0)
                );
                self.emit(b, Op::RequiresGrad { value: v, on }, span);
                if let Some(root) = self.value(v).kind.root() {
                    self.roots[root.0 as usize].requires_grad |= on;
                }
                let view = self.value(v).view.clone();
                self.derive(b, dst, v, ViewOp::Whole, view, span);
            }
            // `t.shallow_clone()`, `t.detach()`: another handle of the same storage.
            Sem::Share => {
                if let Some(v) = arg(0).filter(|&v| self.value(v).kind.is_memory()) {
                    let view = self.value(v).view.clone();
                    self.derive(b, dst, v, ViewOp::Whole, view, span);
                }
            }
            // `tch::no_grad(|| ..)`: the closure runs here, with autograd off.
            Sem::NoGrad => {
                let closure =
                    args.iter()
                        .find_map(|a| match a.value.map(|v| &self.value(v).kind) {
                            Some(ValueKind::Closure(body)) => Some(*body),
                            _ => None,
                        });
                let Some(body) = closure else {
                    return self.pass_on(b, name, args, span);
                };
                self.lower_pending_closure(body, &[]);
                if let Some(lowered) = self.bodies.get_mut(body.0 as usize) {
                    lowered.no_grad = true;
                }
                self.emit(
                    b,
                    Op::Call {
                        dst: Some(dst),
                        callee: Callee::Closure(body),
                        args: Vec::new(),
                    },
                    span,
                );
            }
            _ => self.pass_on(b, name, args, span),
        }
    }

    /// The views a modelled view method returns: the geometry of the method applied to
    /// the receiver's (`tensor_lint_analyzer::ir::geometry`). An ndarray method names
    /// its axis with an `Axis(k)` argument; a slice's methods walk its one axis.
    fn view_call(
        &mut self,
        b: &BodyCx<'tcx>,
        kind: ViewKind,
        args: &[Arg<'tcx>],
        dst: ValueId,
        span: Span,
    ) {
        let Some(src) = args.first().and_then(|a| a.value) else {
            return;
        };
        if !self.value(src).kind.is_memory() {
            return;
        }
        // The arguments after the receiver: an axis first when the method takes one.
        let rest: Vec<&Arg<'tcx>> = args.iter().skip(1).collect();
        let axis = rest
            .first()
            .filter(|a| types::adt_is(self.tcx, a.ty, "ndarray", "Axis"))
            .and_then(|a| a.value)
            .and_then(|v| self.field_of(v, 0, 0))
            .and_then(|v| self.int_of(v))
            .and_then(|e| e.as_const())
            .and_then(|k| usize::try_from(k).ok());
        let operands: Vec<Option<Expr>> = rest
            .iter()
            .skip(usize::from(axis.is_some()))
            .map(|a| a.value.and_then(|v| self.int_of(v)))
            .collect();
        let int = |k: usize| operands.get(k).cloned().flatten();
        let view = self.value(src).view.clone();
        let apply = |how: &ViewOp| view.as_ref().and_then(|v| geometry::apply(v, how));
        match kind {
            ViewKind::SplitAt => {
                let Some(at) = int(0) else {
                    self.derive(b, dst, src, ViewOp::Opaque("split_at".into()), None, span);
                    return;
                };
                for (k, second) in [(0u32, false), (1, true)] {
                    let class = self.value(dst).ty;
                    let part = self.new_value(None, ValueKind::Unknown, class, span);
                    let how = ViewOp::Split {
                        axis: axis.unwrap_or(0),
                        at: at.clone(),
                        second,
                    };
                    let part_view = apply(&how);
                    self.derive(b, part, src, how, part_view, span);
                    self.set_field(dst, 0, k, part);
                }
            }
            ViewKind::Chunks | ViewKind::AxisIter => {
                let chunk = match kind {
                    ViewKind::Chunks => int(0),
                    _ => None,
                };
                self.derive(b, dst, src, ViewOp::Whole, view.clone(), span);
                self.iters.insert(
                    dst,
                    super::closures::IterInfo {
                        source: src,
                        axis: axis.unwrap_or(0),
                        chunk,
                        parallel: false,
                        wraps: Vec::new(),
                    },
                );
            }
            ViewKind::Transpose => {
                let how = ViewOp::Transpose;
                let v = apply(&how);
                self.derive(b, dst, src, how, v, span);
            }
            // tch's `t.narrow(dim, start, length)`.
            ViewKind::Narrow => {
                let dim = int(0)
                    .and_then(|e| e.as_const())
                    .and_then(|d| usize::try_from(d).ok());
                let (how, v) = match (dim, int(1), int(2)) {
                    (Some(axis), Some(start), Some(len)) => {
                        let how = ViewOp::narrowed(axis, start, len);
                        let v = apply(&how);
                        (how, v)
                    }
                    _ => (ViewOp::Opaque("narrow".into()), None),
                };
                self.derive(b, dst, src, how, v, span);
            }
            ViewKind::IndexAxis(fixed) => {
                let (Some(axis), Some(index)) = (fixed.or(axis), int(0)) else {
                    self.derive(b, dst, src, ViewOp::Opaque("index_axis".into()), None, span);
                    return;
                };
                let v = view.as_ref().and_then(|v| v.index(axis, index.clone()));
                self.derive(b, dst, src, ViewOp::Slice(Vec::new()), v, span);
            }
            ViewKind::Broadcast => {
                let shape = rest
                    .first()
                    .and_then(|a| a.value)
                    .and_then(|v| self.shape_of(v));
                let how = match shape {
                    Some(shape) => ViewOp::Broadcast(shape),
                    None => ViewOp::Opaque("broadcast".into()),
                };
                let v = apply(&how);
                self.derive(b, dst, src, how, v, span);
                // `broadcast` gives an `Option` of the view.
                self.set_field(dst, 1, 0, dst);
            }
            // tch's `t.i(1..4)`, `t.i((0..4, 2..8))`: a range or an index per leading
            // axis, as a slice.
            ViewKind::TchIndex => {
                let index = rest.first().and_then(|a| a.value);
                let parts: Vec<ValueId> = match index {
                    Some(v) if self.ranges.contains_key(&v) || self.int_of(v).is_some() => vec![v],
                    Some(v) => (0..).map_while(|k| self.field_of(v, 0, k)).collect(),
                    None => Vec::new(),
                };
                let specs: Option<Vec<SliceSpec>> = (!parts.is_empty())
                    .then(|| {
                        parts
                            .iter()
                            .map(|&p| match (self.ranges.get(&p), self.int_of(p)) {
                                (Some((lo, hi)), _) => Some(SliceSpec::Range {
                                    start: Some(lo.clone()),
                                    end: Some(hi.clone()),
                                    step: Expr::int(1),
                                }),
                                (None, Some(i)) => Some(SliceSpec::Index(i)),
                                (None, None) => None,
                            })
                            .collect()
                    })
                    .flatten();
                let how = match specs {
                    Some(specs) => ViewOp::Slice(specs),
                    None => ViewOp::Opaque("i".into()),
                };
                let v = apply(&how);
                self.derive(b, dst, src, how, v, span);
            }
            // `m.split_at_row_mut(k)`: the rows (or columns) before `k` and from it.
            ViewKind::SplitOn(axis) => {
                for (k, second) in [(0u32, false), (1, true)] {
                    let class = self.value(dst).ty;
                    let part = self.new_value(None, ValueKind::Unknown, class, span);
                    let (how, part_view) = match int(0) {
                        Some(at) => {
                            let how = ViewOp::Split { axis, at, second };
                            let v = apply(&how);
                            (how, v)
                        }
                        None => (ViewOp::Opaque("split".into()), None),
                    };
                    self.derive(b, part, src, how, part_view, span);
                    self.set_field(dst, 0, k, part);
                }
            }
            // `m.submatrix_mut(row, col, nrows, ncols)`.
            ViewKind::Block => {
                let how = match (int(0), int(1), int(2), int(3)) {
                    (Some(r), Some(c), Some(nr), Some(nc)) => {
                        ViewOp::Slice(vec![block_spec(r, nr), block_spec(c, nc)])
                    }
                    _ => ViewOp::Opaque("block".into()),
                };
                let v = apply(&how);
                self.derive(b, dst, src, how, v, span);
            }
            // `m.view_range(0..2, 1..4)`: a range on each axis.
            ViewKind::Ranges => {
                let specs: Option<Vec<SliceSpec>> = rest
                    .iter()
                    .take(2)
                    .map(|a| a.value.and_then(|v| self.range_spec(v)))
                    .collect();
                let how = match specs {
                    Some(specs) if specs.len() == 2 => ViewOp::Slice(specs),
                    _ => ViewOp::Opaque("view_range".into()),
                };
                let v = apply(&how);
                self.derive(b, dst, src, how, v, span);
            }
            // `m.columns_range_pair_mut(a, b)`: two views along `axis`.
            ViewKind::RangePair(axis) => {
                for k in 0..2u32 {
                    let class = self.value(dst).ty;
                    let part = self.new_value(None, ValueKind::Unknown, class, span);
                    let spec = rest
                        .get(k as usize)
                        .and_then(|a| a.value)
                        .and_then(|v| self.range_spec(v));
                    let how = match spec {
                        Some(SliceSpec::Range { start, end, step }) => {
                            ViewOp::on_axis(axis, start, end, step)
                        }
                        _ => ViewOp::Opaque("range".into()),
                    };
                    let v = apply(&how);
                    self.derive(b, part, src, how, v, span);
                    self.set_field(dst, 0, k, part);
                }
            }
            ViewKind::Whole => self.derive(b, dst, src, ViewOp::Whole, view, span),
            // `a.slice_mut(s![1..3, ..;2])`: the axes the macro's `SliceInfo` selects.
            ViewKind::SliceMacro => {
                let how = match rest
                    .first()
                    .and_then(|a| a.value)
                    .and_then(|v| self.slice_info(v))
                {
                    Some(specs) => ViewOp::Slice(specs),
                    None => ViewOp::Opaque("view".into()),
                };
                let v = apply(&how);
                self.derive(b, dst, src, how, v, span);
            }
            // A view this lowering does not place (reshapes): the same memory, somewhere
            // in it.
            _ => self.derive(b, dst, src, ViewOp::Opaque("view".into()), None, span),
        }
    }

    /// The elements `lo..hi` the range `i` (of type `ty`) picks out of `buffer`: `a..b`,
    /// `..b`, `..=b`, and `a..` or `..` when the buffer's length is known.
    fn index_range(&self, i: ValueId, ty: Ty<'tcx>, buffer: ValueId) -> Option<(Expr, Expr)> {
        let (lo, hi) = self.range_bounds(i, ty)?;
        let hi = match hi {
            Some(hi) => hi,
            None => self.length_of(buffer)?,
        };
        Some((lo.unwrap_or_else(|| Expr::int(0)), hi))
    }

    /// The bounds of the range `v` of type `ty` (`a..b`, `a..=b`, `a..`, `..b`, `..=b`,
    /// `..`), the end past the last element, `None` for an open side; `None` for a value
    /// that is no range or whose bounds are not known.
    fn range_bounds(&self, v: ValueId, ty: Ty<'tcx>) -> Option<(Option<Expr>, Option<Expr>)> {
        if let Some((lo, hi)) = self.ranges.get(&v) {
            return Some((Some(lo.clone()), Some(hi.clone())));
        }
        let ty::Adt(adt, _) = ty.peel_refs().kind() else {
            return None;
        };
        let tcx = self.tcx;
        if tcx.crate_name(adt.did().krate).as_str() != "core" {
            return None;
        }
        let bound = || self.field_of(v, 0, 0).and_then(|f| self.int_of(f));
        match tcx.item_name(adt.did()).as_str() {
            "RangeFull" => Some((None, None)),
            "RangeFrom" => Some((Some(bound()?), None)),
            "RangeTo" => Some((None, Some(bound()?))),
            "RangeToInclusive" => Some((None, Some(&bound()? + &Expr::int(1)))),
            _ => None,
        }
    }

    /// The pieces of ndarray's `s![..]`, which the macro builds by calls: each axis's
    /// element (`SliceInfoElem::from(r)`, `Slice::from(r).step_by(k)`) and the
    /// `SliceInfo` made of them (`SliceInfo::new_unchecked([..], ..)`), recorded by
    /// value for the slicing method that takes it. Returns whether the call was one
    /// (they read and write no memory).
    fn slice_argument(
        &mut self,
        func: &mir::Operand<'tcx>,
        args: &[Arg<'tcx>],
        dst: ValueId,
    ) -> bool {
        let tcx = self.tcx;
        let Some((def_id, generics)) = func.const_fn_def() else {
            return false;
        };
        // The type the method is of: an inherent impl's, or the `Self` of a trait call
        // (`<SliceInfoElem as From<Range<i32>>>::from`).
        let self_ty = match tcx.impl_of_assoc(def_id) {
            Some(imp) => tcx.type_of(imp).instantiate_identity().skip_normalization(),
            None if tcx.trait_of_assoc(def_id).is_some() => match generics.types().next() {
                Some(ty) => ty,
                None => return false,
            },
            None => return false,
        };
        let of = |name: &str| types::adt_is(tcx, self_ty, "ndarray", name);
        let arg = |k: usize| args.get(k).and_then(|a| a.value);
        let from = tcx
            .trait_of_assoc(def_id)
            .is_some_and(|t| tcx.is_diagnostic_item(rustc_span::sym::From, t));
        match self.cx.models.role(tcx, def_id) {
            _ if from && (of("SliceInfoElem") || of("Slice")) => {
                if let Some(spec) = arg(0).and_then(|v| self.slice_elem(v, args[0].ty)) {
                    self.slice_elems.insert(dst, spec);
                }
                true
            }
            Some(Role::SliceStepBy) => {
                let spec = arg(0).and_then(|v| self.slice_elem(v, args[0].ty));
                let by = arg(1).and_then(|v| self.int_of(v));
                if let (Some(SliceSpec::Range { start, end, step }), Some(by)) = (spec, by) {
                    let step = &step * &by;
                    self.slice_elems
                        .insert(dst, SliceSpec::Range { start, end, step });
                }
                true
            }
            Some(Role::SliceInfoNew) => {
                if let Some(specs) = arg(0).and_then(|v| self.slice_elements(v)) {
                    self.slice_infos.insert(dst, specs);
                }
                true
            }
            _ => false,
        }
    }

    /// What one element of `s![..]` selects, from the value it is made of: a range
    /// (`a..b`, `a..`, `..b`, `..`), an index, a `Slice`, `NewAxis`.
    fn slice_elem(&self, v: ValueId, ty: Ty<'tcx>) -> Option<SliceSpec> {
        let v = self.canonical(v);
        if let Some(spec) = self.slice_elems.get(&v) {
            return Some(spec.clone());
        }
        if let Some((start, end)) = self.range_bounds(v, ty) {
            return Some(SliceSpec::Range {
                start,
                end,
                step: Expr::int(1),
            });
        }
        let ty = ty.peel_refs();
        match ty.kind() {
            ty::Adt(..) => {
                types::adt_is(self.tcx, ty, "ndarray", "NewAxis").then_some(SliceSpec::NewAxis)
            }
            _ => self.int_of(v).map(SliceSpec::Index),
        }
    }

    /// The elements of the array `v` holds (an array literal, or a copy of one), each as
    /// what it selects; `None` unless every one is known.
    fn slice_elements(&self, v: ValueId) -> Option<Vec<SliceSpec>> {
        let mut fields = self.fields_of(v);
        if fields.is_empty() {
            let root = self.value(v).kind.root()?;
            let literal = *self.array_literals.get(&root)?;
            fields = self.fields_of(literal);
        }
        if fields.is_empty() {
            return None;
        }
        fields
            .iter()
            .map(|&(_, _, e)| self.slice_elems.get(&self.canonical(e)).cloned())
            .collect()
    }

    /// The axes the `SliceInfo` (or a borrow of it) `v` selects.
    fn slice_info(&self, mut v: ValueId) -> Option<Vec<SliceSpec>> {
        for _ in 0..8 {
            v = self.canonical(v);
            if let Some(specs) = self.slice_infos.get(&v) {
                return Some(specs.clone());
            }
            v = *self.whole_views.get(&v)?;
        }
        None
    }

    /// A range value (`a..b`) or an index (`k`, the range `k..k + 1`) as a slice of
    /// one axis.
    fn range_spec(&self, v: ValueId) -> Option<SliceSpec> {
        if let Some((lo, hi)) = self.ranges.get(&v) {
            return Some(SliceSpec::Range {
                start: Some(lo.clone()),
                end: Some(hi.clone()),
                step: Expr::int(1),
            });
        }
        self.int_of(v).map(|i| block_spec(i, Expr::int(1)))
    }

    /// The shape a value describes: an integer, or a tuple or array of integers.
    pub(crate) fn shape_of(&self, v: ValueId) -> Option<Vec<Expr>> {
        if let Some(n) = self.int_of(v) {
            return Some(vec![n]);
        }
        if let Some(shape) = self.shapes.get(&v) {
            return Some(shape.clone());
        }
        let mut dims = Vec::new();
        for k in 0.. {
            match self.field_of(v, 0, k) {
                Some(d) => dims.push(self.int_of(d)?),
                None => break,
            }
        }
        if dims.is_empty() {
            // A borrow of the numbers (`&dims` cast to a slice): theirs.
            if let Some(&src) = self.whole_views.get(&v) {
                return self.shape_of(src);
            }
            // A borrow of an array literal (`&[h as i64, w as i64]`): its elements.
            let literal = self
                .value(v)
                .kind
                .root()
                .and_then(|r| self.array_literals.get(&r));
            if let Some(&array) = literal.filter(|&&a| a != v) {
                return self.shape_of(array);
            }
        }
        (!dims.is_empty()).then_some(dims)
    }
}

/// A call to a modelled function, as [`FnLowerer::model_call`] reads it.
struct ModelCall<'c, 'tcx> {
    name: &'c str,
    args: &'c [Arg<'tcx>],
    generics: ty::GenericArgsRef<'tcx>,
    dst: ValueId,
    dest_ty: Ty<'tcx>,
}

/// The last two segments of a model's path (`ArrayBase::zeros`), as a call is written.
/// The model rows whose memory is not initialised when they hand it out (what
/// `Vec::with_capacity` allocates is spare capacity until something is stored).
const UNINIT_ALLOCATORS: &[&str] = &[
    "std::alloc::alloc",
    "Box::new_uninit",
    "Box::new_uninit_slice",
    "Vec::with_capacity",
];

fn short_path(path: &str) -> String {
    let segments: Vec<&str> = path.split("::").collect();
    segments[segments.len().saturating_sub(2)..].join("::")
}

/// Whether `ty` (behind references) is a tensor of a library whose tensors have no
/// in-place ops (candle).
fn immutable_tensors<'tcx>(tcx: ty::TyCtxt<'tcx>, ty: Ty<'tcx>) -> bool {
    match ty.peel_refs().kind() {
        ty::Adt(adt, _) => tensor_lint_analyzer::models::has_immutable_tensors(
            tcx.crate_name(adt.did().krate).as_str(),
        ),
        _ => false,
    }
}

/// `start..start + len` on one axis.
fn block_spec(start: Expr, len: Expr) -> SliceSpec {
    SliceSpec::Range {
        end: Some(&start + &len),
        start: Some(start),
        step: Expr::int(1),
    }
}

/// A modelled method as the user wrote it: its name (`mapv_inplace`, not the row's
/// path), or the operator of a compound assignment (`*=` for `MulAssign::mul_assign`).
fn written_method(path: &str) -> String {
    let name = path.rsplit("::").next().unwrap_or(path);
    let operator = match name {
        "add_assign" => "+=",
        "sub_assign" => "-=",
        "mul_assign" => "*=",
        "div_assign" => "/=",
        "rem_assign" => "%=",
        "bitand_assign" => "&=",
        "bitor_assign" => "|=",
        "bitxor_assign" => "^=",
        "shl_assign" => "<<=",
        "shr_assign" => ">>=",
        _ => name,
    };
    operator.to_string()
}

/// Whether a new length is a length and more (`len + 1`, `self.length + n`'s constant
/// part positive): slots past the old length become counted.
pub(crate) fn longer(n: &Expr) -> bool {
    n.constant_term() > 0 && !n.non_constant_part().is_const()
}
