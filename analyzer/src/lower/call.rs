//! Lowering of calls by path: crate-local functions through their summaries, modelled
//! library functions, constructors of tracked values, and opaque calls.

use super::Lowerer;
use crate::index::Resolved;
use crate::ir::{
    Callee, EscapeKind, FnId, Op, ReleaseKind, ReleasedBy, RootOrigin, TyClass, ValueId, ValueKind,
    ViewOp,
};
use crate::models::foreign::Foreign;
use crate::models::{self, Sem};
use crate::oracle::Expr;
use crate::source::Span;
use crate::summary::ReturnSummary;

/// An argument as the call saw it: its value and whether it was passed by reference.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Arg {
    pub value: ValueId,
    pub by_ref: bool,
}

impl Lowerer<'_, '_, '_> {
    pub(crate) fn lower_args<'e>(&mut self, args: impl Iterator<Item = &'e syn::Expr>) -> Vec<Arg> {
        args.map(|a| {
            let by_ref = matches!(a, syn::Expr::Reference(_));
            let value = self.expr(a);
            // `f(*boxed)` moves the contents out of the box, not the box: the box still
            // owns (and frees) its own block, and the contents are not tracked.
            let contents = matches!(a, syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)))
                && matches!(self.val(value).kind, ValueKind::Root(_));
            if contents {
                let span = self.val(value).span;
                return Arg {
                    value: self.unknown(span),
                    by_ref,
                };
            }
            if !by_ref {
                self.mark_moved(value);
            }
            Arg { value, by_ref }
        })
        .collect()
    }

    /// An owner used by value is moved: its scope does not drop it.
    /// `((*alloc).free)(alloc, p)`: the releasing function an allocator struct holds
    /// releases the owed handles it is given.
    fn release_through_field(&mut self, field: &str, args: &[Arg], span: Span) -> ValueId {
        for a in args {
            if self
                .root_of(a.value)
                .is_some_and(|r| r.released_by.is_owed())
            {
                self.emit(
                    Op::Release {
                        value: a.value,
                        how: ReleaseKind::Function(field.to_string()),
                    },
                    span,
                );
            }
        }
        self.unknown(span)
    }

    /// `Box::from_raw(*slot)`, `dealloc(*p, l)`: the pointer released is read from
    /// memory (an element of a list of children, a field behind a pointer), so the
    /// block it points to is another than the one `slot` reaches, and maybe another
    /// on each iteration.
    fn release_loaded_pointer(
        &mut self,
        arg: Option<&syn::Expr>,
        args: &mut [Arg],
        i: usize,
        span: Span,
    ) {
        let deref = matches!(arg, Some(syn::Expr::Unary(u)) if matches!(u.op, syn::UnOp::Deref(_)));
        let Some(slot) = args.get(i).map(|a| a.value) else {
            return;
        };
        if !deref || !self.val(slot).kind.is_memory() {
            return;
        }
        let p = self.loaded_block(slot, span);
        if let Some(a) = args.get_mut(i) {
            a.value = p;
        }
    }

    /// The pointer stored at `slot`, read from it: a block of unknown origin, another
    /// than the one `slot` is in.
    pub(crate) fn loaded_block(&mut self, slot: ValueId, span: Span) -> ValueId {
        let region = self.val(slot).view.clone();
        self.emit(
            Op::Read {
                value: slot,
                region,
            },
            span,
        );
        let name = self
            .val(slot)
            .name
            .clone()
            .unwrap_or_else(|| "pointer".into());
        self.pointer_to_unknown_block(format!("*{name}"), 1, span)
    }

    /// A pointer loaded from memory, to a block of unknown origin named `name`.
    pub(crate) fn pointer_to_unknown_block(
        &mut self,
        name: String,
        elem: u32,
        span: Span,
    ) -> ValueId {
        let root = self.new_root(
            name,
            RootOrigin::Unknown,
            elem,
            None,
            ReleasedBy::NotOwned,
            span,
        );
        let p = self.new_value(None, ValueKind::RawPtr(Some(root)), TyClass::RawPtr, span);
        self.emit(Op::Load { dst: p, root }, span);
        p
    }

    pub(crate) fn mark_moved(&mut self, v: ValueId) {
        if matches!(self.val(v).kind, ValueKind::Root(_)) {
            self.moved.insert(v);
        }
    }

    pub(crate) fn call(&mut self, c: &syn::ExprCall, span: Span) -> ValueId {
        let syn::Expr::Path(p) = &*c.func else {
            let f = self.expr(&c.func);
            let args = self.lower_args(c.args.iter());
            if let Some(field) = releasing_field(&c.func) {
                return self.release_through_field(&field, &args, span);
            }
            let v = self.call_value(f, &args, span);
            self.pointers_written_through(c.args.iter(), span);
            return v;
        };
        let segs: Vec<String> = p
            .path
            .segments
            .iter()
            .map(|s| s.ident.to_string())
            .collect();
        if segs.len() == 1 {
            if let Some(f) = self.lookup(&segs[0]) {
                let args = self.lower_args(c.args.iter());
                return self.call_value(f, &args, span);
            }
        }
        // A function declared inside the body (an `extern` block's, a nested `fn`) is
        // not the crate-level item of that name.
        let resolved = if segs.len() == 1 && self.body_items.contains(&segs[0]) {
            Resolved::External(segs.clone())
        } else {
            self.ctx
                .index
                .resolve_path(&self.item.module, self.item.self_ty.as_deref(), &segs)
        };
        // Closures passed to parallel APIs are lowered as tasks, not as values.
        if let Resolved::External(path) = &resolved {
            if let Some(sem) = self.ctx.models.path(path) {
                if matches!(sem, Sem::Join | Sem::Scope | Sem::ThreadSpawn | Sem::NoGrad) {
                    let args: Vec<&syn::Expr> = c.args.iter().collect();
                    return self.parallel_call(sem, &args, &path.join("::"), span);
                }
            }
        }
        let mut args = self.lower_args(c.args.iter());
        if let Resolved::External(path) = &resolved {
            if let Some(Sem::Release(_, i)) = self.ctx.models.path(path) {
                self.release_loaded_pointer(c.args.iter().nth(i), &mut args, i, span);
            }
        }
        match resolved {
            Resolved::Local(idx) => self.local_call(idx, &args, span),
            Resolved::External(path) => {
                let name = path.join("::");
                if let Some(sem) = self.ctx.models.path(&path) {
                    if let Sem::OwedAllocInto(out) = sem {
                        let release = ReleasedBy::Function("a modelled release".into());
                        return self.made_through(&name, release, out, &c.args, span);
                    }
                    let elem = path_elem_bytes(&p.path);
                    let ty = path_class(&path);
                    return self.apply_sem(sem, &name, None, &args, ty, elem, span);
                }
                if let Some(last) = path.last() {
                    // `Ok(h)`, `Some(p)`: the value is inside, with its memory.
                    let variant = path.len() == 1
                        && models::is_wrapper_variant(last)
                        && args.iter().any(|a| {
                            matches!(
                                self.val(a.value).kind,
                                ValueKind::Root(_)
                                    | ValueKind::View(_)
                                    | ValueKind::RawPtr(Some(_))
                            )
                        });
                    let values: Vec<ValueId> = args.iter().map(|a| a.value).collect();
                    if let Some(owner) = self.owner_rebuilt(last, &values, span) {
                        return owner;
                    }
                    if variant || self.ctx.index.struct_named(last).is_some() {
                        return self.wrap(&args, span);
                    }
                    // `Type::method(recv, ..)`: a method model called by path. Models of
                    // what a method's result is (`unwrap`, `is_null`, `strides`) describe
                    // method syntax only.
                    if !args.is_empty() {
                        let recv_ty = self.val(args[0].value).ty;
                        let sem = self.ctx.models.method(recv_ty, last).filter(|s| {
                            !matches!(s, Sem::Transparent | Sem::NullTest | Sem::ShapeStrides)
                        });
                        if let Some(sem) = sem {
                            let recv = args[0];
                            return self.apply_sem(
                                sem,
                                last,
                                Some(recv),
                                &args[1..],
                                TyClass::Unknown,
                                None,
                                span,
                            );
                        }
                    }
                }
                // A foreign function declared by the crate reads through the pointers
                // it is given: a pointer that dangles is used here.
                // (`consume(p)`, `ffi::consume(p)`: by its name, which the crate's
                // bindings declare once.)
                let foreign = path
                    .last()
                    .is_some_and(|last| self.ctx.index.extern_fns.contains(last));
                if foreign {
                    let last = path.last().cloned().unwrap_or_default();
                    return self.foreign_call(&last, &c.args, &args, span);
                }
                let v = self.unknown_call(name, &args, span);
                self.pointers_written_through(c.args.iter(), span);
                v
            }
        }
    }

    /// A call to a foreign function the crate declares. It reads through the pointers it
    /// is given: a pointer that dangles is used here. A function that makes a handle
    /// owes it to its releasing function ([`crate::models::foreign`]); any other
    /// foreign function only borrows the handles it is given, so they are still owed.
    fn foreign_call(
        &mut self,
        name: &str,
        exprs: &syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>,
        args: &[Arg],
        span: Span,
    ) -> ValueId {
        let role = self.ctx.index.foreign.get(name).cloned();
        for (i, a) in args.iter().enumerate() {
            // The handle a release is given is released, not read: a second release
            // is a double release, not a use after the first.
            if matches!(role, Some(Foreign::Release { arg }) if arg == i) {
                continue;
            }
            // A pointer, or a reference to what holds one (`&mut dims` of a struct with
            // a pointer field).
            let reaches = match self.val(a.value).kind {
                ValueKind::RawPtr(Some(_)) => true,
                ValueKind::View(_) => a.by_ref,
                _ => false,
            };
            if reaches {
                self.emit(
                    Op::Read {
                        value: a.value,
                        region: None,
                    },
                    span,
                );
            }
        }
        match role {
            Some(Foreign::Release { arg }) => {
                return self.apply_sem(
                    Sem::Release(models::ReleaseHow::Function, arg),
                    name,
                    None,
                    args,
                    TyClass::Unknown,
                    None,
                    span,
                );
            }
            Some(Foreign::Create { out, release }) => {
                let release = ReleasedBy::Function(release);
                return match out {
                    None => self.new_pointer(name, 1, release, span),
                    Some(out) => self.made_through(name, release, out, exprs, span),
                };
            }
            None => {}
        }
        // Handles owed to a foreign releasing function stay owed: another foreign
        // function only borrows them. Other memory may be kept (a pool buffer or a
        // `Box::into_raw` handed over to a queue).
        let kept: Vec<Arg> = args
            .iter()
            .copied()
            .filter(|a| {
                !self.root_of(a.value).is_some_and(|r| match &r.released_by {
                    ReleasedBy::Function(release) => matches!(
                        self.ctx.index.foreign.get(release),
                        Some(Foreign::Release { .. })
                    ),
                    _ => false,
                })
            })
            .collect();
        let v = self.unknown_call(name.to_string(), &kept, span);
        self.pointers_written_through(exprs.iter(), span);
        v
    }

    /// A binding that is a pointer itself (`*mut T`), not a value holding one: what an
    /// out-parameter `&mut p` can replace.
    pub(crate) fn is_pointer_binding(&self, v: ValueId) -> bool {
        matches!(self.val(v).kind, ValueKind::RawPtr(_)) && self.val(v).ty == TyClass::RawPtr
    }

    /// `get_values(&mut p, ..)` of a function this analysis does not see into: it may
    /// store another pointer in `p`, so `p` may point elsewhere after the call.
    pub(crate) fn pointers_written_through<'e>(
        &mut self,
        exprs: impl Iterator<Item = &'e syn::Expr>,
        span: Span,
    ) {
        // Invisible groups come from expanded macros.
        fn bare(e: &syn::Expr) -> &syn::Expr {
            match e {
                syn::Expr::Group(g) => bare(&g.expr),
                syn::Expr::Paren(p) => bare(&p.expr),
                other => other,
            }
        }
        for e in exprs {
            let syn::Expr::Reference(r) = bare(e) else {
                continue;
            };
            let syn::Expr::Path(p) = bare(&r.expr) else {
                continue;
            };
            let (Some(_), Some(name)) = (r.mutability, p.path.get_ident()) else {
                continue;
            };
            let Some(v) = self.lookup(&name.to_string()) else {
                continue;
            };
            if self.is_pointer_binding(v) {
                self.points_elsewhere(v, span);
            }
        }
    }

    /// A pointer to a new block of `elem`-byte elements, owed to `release` (a foreign
    /// handle, an `#[alloc]` function's `*mut T`).
    fn new_pointer(&mut self, name: &str, elem: u32, release: ReleasedBy, span: Span) -> ValueId {
        let p = self.alloc_value(name.to_string(), elem, None, release, TyClass::RawPtr, span);
        let root = self.val(p).kind.root();
        self.val_mut(p).kind = ValueKind::RawPtr(root);
        p
    }

    /// `create(&mut h, ..)`: a new handle stored in `h` through argument `out`, when the
    /// call succeeds; the call's own result is its status.
    fn made_through(
        &mut self,
        name: &str,
        release: ReleasedBy,
        out: usize,
        exprs: &syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>,
        span: Span,
    ) -> ValueId {
        let handle = self.new_pointer(name, 1, release, span);
        if let Some(r) = self.val(handle).kind.root().and_then(|r| self.root_mut(r)) {
            r.held_from_use = true;
        }
        match exprs.iter().nth(out).and_then(out_place) {
            Some(place) => self.assign_to(place, handle, span),
            // Stored somewhere this function does not name: not its to release.
            None => self.emit(
                Op::Escape {
                    value: handle,
                    how: EscapeKind::Stored,
                },
                span,
            ),
        }
        self.unknown(span)
    }

    /// Whether `v` is an element that points to its own object (`locals[t]` of
    /// `&[Arc<Local>]`): a callee given it writes that object, elsewhere, not the
    /// element.
    fn writes_elsewhere(&self, v: ValueId) -> bool {
        self.root_of(v)
            .and_then(|r| r.elem_type.as_deref())
            .is_some_and(models::is_object_pointer)
    }

    /// A newtype or struct wrapping memory (`SendPtr(p)`) carries its memory through.
    pub(crate) fn wrap(&mut self, args: &[Arg], span: Span) -> ValueId {
        match args.iter().find(|a| self.val(a.value).kind.is_memory()) {
            Some(a) => {
                let v = self.copy_value(a.value, None, span);
                self.emit(
                    Op::View {
                        dst: v,
                        src: a.value,
                        how: ViewOp::Whole,
                    },
                    span,
                );
                v
            }
            None => self.new_value(None, ValueKind::Unknown, TyClass::LocalStruct, span),
        }
    }

    pub(crate) fn struct_literal(&mut self, s: &syn::ExprStruct, span: Span) -> ValueId {
        let mut fields = Vec::new();
        for f in &s.fields {
            let v = self.expr(&f.expr);
            let name = match &f.member {
                syn::Member::Named(n) => n.to_string(),
                syn::Member::Unnamed(i) => i.index.to_string(),
            };
            fields.push((name, v));
        }
        if let Some(rest) = &s.rest {
            self.expr(rest);
        }
        for (_, v) in &fields {
            self.mark_moved(*v);
        }
        // An owner type with its own `Drop` (`Descriptor { raw, .. }`) takes the handles
        // it is built from: releasing them is its `Drop`'s duty from here on.
        let owner = s
            .path
            .segments
            .last()
            .map(|seg| seg.ident.to_string())
            .and_then(|name| match name.as_str() {
                "Self" => self.item.self_ty.clone(),
                _ => Some(name),
            })
            .filter(|name| self.ctx.index.struct_named(name).is_some() && self.owns_memory(name));
        if owner.is_some() {
            for (_, v) in &fields {
                let owed = self.root_of(*v).is_some_and(|r| r.released_by.is_owed());
                if owed {
                    self.emit(
                        Op::Escape {
                            value: *v,
                            how: EscapeKind::Stored,
                        },
                        span,
                    );
                }
            }
        }
        if let Some(name) = s.path.segments.last().map(|seg| seg.ident.to_string()) {
            let values: Vec<ValueId> = fields.iter().map(|(_, v)| *v).collect();
            if let Some(owner) = self.owner_rebuilt(&name, &values, span) {
                return owner;
            }
            if let Some(out) = self.struct_memory(&name, &fields, span) {
                return out;
            }
        }
        // A field holding a tuple of parts (`heap: (ptr, len)`) carries the memory of
        // its parts.
        let args: Vec<Arg> = fields
            .iter()
            .flat_map(|(_, v)| match self.tuples.get(v) {
                Some(parts) => parts.clone(),
                None => vec![*v],
            })
            .map(|value| Arg {
                value,
                by_ref: false,
            })
            .collect();
        let out = self.wrap(&args, span);
        for (name, v) in fields {
            self.fields.insert((out, name), v);
        }
        out
    }

    pub(crate) fn call_value(&mut self, f: ValueId, args: &[Arg], span: Span) -> ValueId {
        let callee = match self.val(f).kind {
            ValueKind::Closure(b) => Callee::Closure(b),
            _ => Callee::Unknown(self.val(f).name.clone().unwrap_or_else(|| "closure".into())),
        };
        let unknown = match &callee {
            Callee::Unknown(name) => Some(name.clone()),
            _ => None,
        };
        let dst = self.unknown(span);
        self.emit(
            Op::Call {
                dst: Some(dst),
                callee,
                args: args.iter().map(|a| a.value).collect(),
            },
            span,
        );
        // A function pointer or a callable of unknown code may keep what it is given.
        if let Some(name) = unknown {
            self.pass_on(&name, args, span);
        }
        dst
    }

    pub(crate) fn unknown_call(&mut self, name: String, args: &[Arg], span: Span) -> ValueId {
        if models::is_thread_count_call(&name) {
            return self.scalar(Some(Expr::sym(models::THREAD_COUNT)), span);
        }
        let dst = self.unknown(span);
        self.emit(
            Op::Call {
                dst: Some(dst),
                callee: Callee::Unknown(name.clone()),
                args: args.iter().map(|a| a.value).collect(),
            },
            span,
        );
        self.pass_on(&name, args, span);
        dst
    }

    /// Memory with a release obligation moved into an opaque call is the callee's now.
    pub(crate) fn pass_on(&mut self, name: &str, args: &[Arg], span: Span) {
        for a in args.iter().filter(|a| !a.by_ref) {
            let v = self.val(a.value);
            let owned = matches!(v.kind, ValueKind::Root(_) | ValueKind::RawPtr(Some(_)));
            let root = self.root_of(a.value);
            // Memory with a release owed, or a raw pointer the caller handed in: code
            // this function cannot see (an `extern` function behind a crate's wrapper)
            // may keep either, and the wrapper's summary says so to its callers.
            let obligation = root.is_some_and(|r| {
                r.released_by.is_owed()
                    || matches!(v.kind, ValueKind::RawPtr(_))
                        && matches!(r.origin, RootOrigin::Param(_))
            });
            if owned && obligation {
                self.emit(
                    Op::Escape {
                        value: a.value,
                        how: EscapeKind::PassedOn(name.to_string()),
                    },
                    span,
                );
            }
        }
    }

    /// A call to a crate-local function: its summary's effects happen here.
    pub(crate) fn local_call(&mut self, idx: usize, args: &[Arg], span: Span) -> ValueId {
        let fid = FnId(idx as u32);
        self.callees.push(fid);
        let dst = self.unknown(span);
        self.emit(
            Op::Call {
                dst: Some(dst),
                callee: Callee::Local(fid),
                args: args.iter().map(|a| a.value).collect(),
            },
            span,
        );
        let summary = match self.ctx.summaries.get(idx).and_then(|s| s.clone()) {
            Some(s) => s,
            None => match self.ctx.index.fn_item(idx) {
                Some(item) => crate::summary::FnSummary::from_annotations(&item.annotations),
                None => return dst,
            },
        };
        let name = self
            .ctx
            .index
            .fn_item(idx)
            .map_or_else(String::new, |f| f.path());
        // `if this_partition(h, part, n)`: what the callee's `true` says, here.
        let condition: Option<Vec<crate::ir::Assumption>> = summary
            .returns_condition
            .iter()
            .map(|a| {
                Some(crate::ir::Assumption {
                    lhs: self.callee_offset(idx, &a.lhs, args)?,
                    cmp: a.cmp,
                    rhs: self.callee_offset(idx, &a.rhs, args)?,
                })
            })
            .collect();
        if let Some(c) = condition.filter(|c| !c.is_empty()) {
            self.conditions.insert(dst, c);
        }
        let arg = |i: usize| args.get(i).map(|a| a.value);
        // The arguments at `params` that reach memory, in parameter order.
        let memory_args = |params: &std::collections::BTreeSet<usize>| -> Vec<ValueId> {
            params
                .iter()
                .filter_map(|&i| arg(i))
                .filter(|&v| self.val(v).kind.is_memory())
                .collect()
        };

        let mut effects: Vec<Op> = Vec::new();
        effects.extend(
            memory_args(&summary.reads)
                .into_iter()
                .map(|value| Op::Read {
                    value,
                    region: None,
                }),
        );
        for &i in &summary.writes {
            let Some(value) = arg(i).filter(|&v| self.val(v).kind.is_memory()) else {
                continue;
            };
            if self.writes_elsewhere(value) {
                continue;
            }
            match self.placed_writes(idx, &summary, i, value, args) {
                Some(regions) => effects.extend(regions.into_iter().map(|region| Op::Write {
                    value,
                    region: Some(region),
                })),
                None => effects.push(Op::Write {
                    value,
                    region: None,
                }),
            }
        }
        for dst in memory_args(&summary.inplace)
            .into_iter()
            .filter(|&v| !self.writes_elsewhere(v))
        {
            let srcs = args
                .iter()
                .map(|a| a.value)
                .filter(|&a| a != dst && self.val(a).kind.is_memory())
                .collect();
            effects.push(Op::InPlace {
                dst,
                srcs,
                method: name.clone(),
            });
        }
        // A raw owner lent to a `&self` method stays its caller's to drop.
        let lent_receiver = self
            .ctx
            .index
            .fn_item(idx)
            .filter(|item| item.ref_receiver)
            .and_then(|_| arg(0))
            .filter(|&v| self.raw_owner_type(v).is_some());
        effects.extend(
            memory_args(&summary.escapes)
                .into_iter()
                .filter(|&v| Some(v) != lent_receiver)
                .map(|value| Op::Escape {
                    value,
                    how: EscapeKind::PassedOn(name.clone()),
                }),
        );
        effects.extend(
            memory_args(&summary.frees)
                .into_iter()
                .map(|value| Op::Release {
                    value,
                    how: ReleaseKind::Function(name.clone()),
                }),
        );
        for op in effects {
            self.emit(op, span);
        }
        // Atomic writes of the callee land on the argument's bytes it names.
        for &(i, bytes, inner) in &summary.atomic_writes {
            let Some(value) = arg(i).filter(|&v| self.val(v).kind.is_memory()) else {
                continue;
            };
            if self.writes_elsewhere(value) {
                continue;
            }
            let value = match bytes {
                Some((offset, len)) if self.is_struct_memory(value) => {
                    self.byte_range(value, offset, len, span)
                }
                _ => value,
            };
            self.emit(
                Op::Atomic {
                    value,
                    write: true,
                    inner: Some(inner),
                },
                span,
            );
        }
        // Atomic writes of the callee to entries of its arguments' buffer fields (a lock
        // of `map.shards` taken), at the index it is given or one it computes.
        for w in &summary.field_writes {
            let Some(base) = arg(w.param) else { continue };
            // The receiver is an object of the method's own type.
            let object_type = self
                .ctx
                .index
                .fn_item(idx)
                .filter(|f| f.has_receiver && w.param == 0)
                .and_then(|f| f.self_ty.clone());
            let field =
                self.field_value_of(None, object_type.as_deref(), base, w.field.clone(), span);
            let Some(table) = self.val(field).view.clone().filter(|v| v.dims.len() == 1) else {
                continue;
            };
            let index = match w
                .index
                .as_ref()
                .and_then(|i| self.callee_offset(idx, i, args))
            {
                Some(i) => i,
                None => self.run_time_index(table.dims[0].len.clone()),
            };
            let value = self.derive_view(
                field,
                ViewOp::Slice(vec![crate::ir::SliceSpec::Index(index)]),
                span,
            );
            self.emit(
                Op::Atomic {
                    value,
                    write: true,
                    inner: Some(w.span),
                },
                span,
            );
        }
        // Atomic writes of the callee to entries of `static` tables it chooses.
        for (table, inner) in &summary.table_writes {
            let value = self.table_entry(table, span);
            self.emit(
                Op::Atomic {
                    value,
                    write: true,
                    inner: Some(*inner),
                },
                span,
            );
        }
        // What the signature alone says, when the body said nothing of the result:
        // `fn get(&self) -> &mut T` hands out unique access to all the receiver holds
        // (so each call claims it), and `fn new(target: &'a mut T) -> Self` makes a
        // value holding its `&mut` argument.
        if summary.returns == ReturnSummary::Nothing {
            let item = self.ctx.index.fn_item(idx);
            let mut_from_shared = item.is_some_and(|f| f.mut_from_shared);
            let holds = item.and_then(|f| f.holds_borrow);
            if let Some(src) = arg(0).filter(|&v| mut_from_shared && self.val(v).kind.is_memory()) {
                // Unchecked, as a view rebuilt from a raw pointer is: the borrow checker
                // did not see this `&mut`.
                let how = match &self.val(src).view {
                    Some(view) => ViewOp::FromRaw {
                        shape: view.dims.iter().map(|d| d.len.clone()).collect(),
                        strides: Some(view.dims.iter().map(|d| d.stride.clone()).collect()),
                    },
                    None => ViewOp::Opaque(name.clone()),
                };
                let v = self.derive_view(src, how, span);
                self.claim(v, span);
                return v;
            }
            if let Some(src) = holds
                .and_then(arg)
                .filter(|&v| self.val(v).kind.is_memory())
            {
                return self.derive_view(src, ViewOp::Whole, span);
            }
        }
        // A method that takes an owner by value and returns its own type
        // (`Buffer::new(n).filled(x)`) hands the same owner back: the result carries the
        // duty to release it, so neither the argument's drop nor a leak is reported here.
        if summary.returns == ReturnSummary::Nothing {
            let handed_back = self.ctx.index.fn_item(idx).and_then(|item| item.hands_back);
            let owner = handed_back
                .and_then(arg)
                .filter(|&v| matches!(self.val(v).kind, ValueKind::Root(_)));
            if let Some(v) = owner {
                self.mark_moved(v);
                return self.bit_copy(Some(v), span);
            }
        }
        match summary.returns {
            // An integer the callee computes (`fn partition_count() -> usize`): some
            // value, the same wherever this result is used.
            ReturnSummary::Nothing if self.returns_integer(idx) => {
                let base = self
                    .ctx
                    .index
                    .fn_item(idx)
                    .map_or("value", |f| f.name.as_str());
                let base = base.to_string();
                self.run_time_value(&base, span)
            }
            ReturnSummary::Nothing => {
                // `ShardedMap::new(64)`: an object of the crate's struct, whose methods
                // its method calls are.
                let made = self
                    .ctx
                    .index
                    .fn_item(idx)
                    .and_then(|f| f.returns_owned.clone())
                    .filter(|t| self.ctx.index.struct_named(t).is_some());
                if let Some(ty) = made {
                    if !self.val(dst).kind.is_memory() {
                        self.constructed.insert(dst, ty);
                    }
                }
                dst
            }
            ReturnSummary::Entry(table) => self.table_entry(&table, span),
            ReturnSummary::ViewOf(i) => match arg(i) {
                Some(src) => {
                    // A parameter of unknown type (a trait's `self`) hands out the one
                    // buffer it stands for, as `self.as_mut_ptr()` does.
                    let src = if self.val(src).kind.is_memory() {
                        src
                    } else {
                        self.param_memory(src, span).unwrap_or(src)
                    };
                    let offset = summary
                        .returns_offset
                        .as_ref()
                        .and_then(|off| self.callee_offset(idx, off, args));
                    let how = match offset {
                        Some(off) => ViewOp::Offset(off),
                        None if summary.returns_whole => ViewOp::Whole,
                        None => ViewOp::Opaque(name),
                    };
                    let v = self.derive_view(src, how, span);
                    // `unsafe fn fetch(self, row) -> &'w mut T { &mut *self.base.add(row) }`:
                    // a `&mut` made from a raw pointer, unique for as long as it lives.
                    let returns_mut = self
                        .ctx
                        .index
                        .fn_item(idx)
                        .is_some_and(|f| f.returns_mut_ref);
                    if returns_mut && matches!(self.val(v).kind, ValueKind::RawPtr(_)) {
                        self.claim(v, span);
                    }
                    v
                }
                None => dst,
            },
            ReturnSummary::Alloc(released_by) => {
                let released_by = if self.returns_drop_type(idx) {
                    ReleasedBy::Drop
                } else {
                    released_by
                };
                let raw = self
                    .ctx
                    .index
                    .fn_item(idx)
                    .is_some_and(|f| f.returns_raw_ptr);
                if raw {
                    // `fn checkout(..) -> *mut f32`: a pointer to the new block, read
                    // and written through as pointers are.
                    return self.new_pointer(&name, 4, released_by, span);
                }
                self.alloc_value(name, 4, None, released_by, TyClass::Unknown, span)
            }
        }
    }

    /// The elements callee `idx` writes through its raw-pointer parameter `param`, placed
    /// at the pointer `value` passed for it (see [`FnSummary::write_regions`]); `None`
    /// when the callee's summary does not place them or an integer argument is unknown.
    fn placed_writes(
        &self,
        idx: usize,
        summary: &crate::summary::FnSummary,
        param: usize,
        value: ValueId,
        args: &[Arg],
    ) -> Option<Vec<crate::oracle::View>> {
        if !matches!(self.val(value).kind, ValueKind::RawPtr(_)) {
            return None;
        }
        let at = self.val(value).view.clone()?;
        summary.placed_writes(param, &at, |e| self.callee_offset(idx, e, args))
    }

    /// A callee's offset over its integer parameters, in the caller's terms: each
    /// parameter name replaced by the integer its argument holds; `None` when an
    /// argument's integer is not known.
    fn callee_offset(
        &self,
        idx: usize,
        offset: &crate::oracle::Expr,
        args: &[Arg],
    ) -> Option<crate::oracle::Expr> {
        let params = &self.ctx.index.fn_item(idx)?.params;
        let values: std::collections::HashMap<String, crate::oracle::Expr> = offset
            .symbols()
            .into_iter()
            .map(|s| {
                let i = params.iter().position(|p| *p == s)?;
                let int = self.val(args.get(i)?.value).int.clone()?;
                Some((s, int))
            })
            .collect::<Option<_>>()?;
        Some(offset.map_symbols(&|s| values.get(s).cloned()))
    }

    /// Whether crate-local function `idx` returns a primitive integer.
    fn returns_integer(&self, idx: usize) -> bool {
        self.ctx
            .index
            .fn_item(idx)
            .and_then(|f| f.returns_owned.as_deref())
            .is_some_and(crate::models::is_integer_type)
    }

    /// Whether crate-local function `idx` returns, unannotated, a value of a type the
    /// crate implements `Drop` for: that value frees its memory when it is dropped, on
    /// every path the compiler sees, as a `Vec` does (`Buffer::new` wrapping
    /// `std::alloc::alloc`, released in `impl Drop for Buffer`).
    pub(crate) fn returns_drop_type(&self, idx: usize) -> bool {
        let Some(item) = self.ctx.index.fn_item(idx) else {
            return false;
        };
        if item.annotations.alloc {
            return false;
        }
        let Some(ty) = item.returns_owned.clone() else {
            return false;
        };
        self.has_drop_impl(&ty)
    }
}

/// Element bytes written in a path's generics (`Array2::<f64>::zeros`).
pub(crate) fn path_elem_bytes(path: &syn::Path) -> Option<u32> {
    path.segments.iter().find_map(|s| match &s.arguments {
        syn::PathArguments::AngleBracketed(a) => a.args.iter().find_map(|g| match g {
            syn::GenericArgument::Type(t) => crate::syntax::ty::elem_bytes_of_type(t),
            _ => None,
        }),
        _ => None,
    })
}

/// The class a constructor path gives its result (`Array2::zeros` → array).
pub(crate) fn path_class(path: &[String]) -> TyClass {
    let ty = path
        .iter()
        .rev()
        .skip(1)
        .map(|s| models::class_of_type_name(s))
        .find(|c| *c != TyClass::Unknown);
    match ty {
        Some(TyClass::Shared) => TyClass::Shared,
        Some(c) => c,
        // A bare constructor (`zeros(..)`) is an ndarray one.
        None if path.len() == 1 => TyClass::Array,
        None => path
            .first()
            .map_or(TyClass::Unknown, |krate| models::class_of_crate(krate)),
    }
}

/// The place an out-parameter argument names: `&mut h`, `&mut h as *mut _`,
/// `&mut self.handle`, `h.as_mut_ptr()` of a `MaybeUninit`.
fn out_place(e: &syn::Expr) -> Option<&syn::Expr> {
    match e {
        syn::Expr::Paren(p) => out_place(&p.expr),
        syn::Expr::Cast(c) => out_place(&c.expr),
        syn::Expr::MethodCall(m) if m.method == "as_mut_ptr" && m.args.is_empty() => {
            match &*m.receiver {
                place @ syn::Expr::Path(_) => Some(place),
                _ => None,
            }
        }
        syn::Expr::Reference(r) if r.mutability.is_some() => match &*r.expr {
            place @ (syn::Expr::Path(_) | syn::Expr::Field(_)) => Some(place),
            _ => None,
        },
        _ => None,
    }
}

/// The field a called function pointer is read from, when its name says it releases:
/// `(alloc.free)(..)`, `((*alloc).free.unwrap())(..)`.
fn releasing_field(func: &syn::Expr) -> Option<String> {
    match func {
        syn::Expr::Paren(p) => releasing_field(&p.expr),
        syn::Expr::Group(g) => releasing_field(&g.expr),
        syn::Expr::MethodCall(m) if models::unwraps_option(&m.method.to_string()) => {
            releasing_field(&m.receiver)
        }
        syn::Expr::Field(f) => match &f.member {
            syn::Member::Named(n) => {
                let name = n.to_string();
                models::foreign::names_a_release(&name).then_some(name)
            }
            syn::Member::Unnamed(_) => None,
        },
        _ => None,
    }
}
