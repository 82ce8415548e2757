//! The effects of a model's semantics on memory: new buffers, views with their geometry,
//! releases, escapes, reads and writes.

use super::call::Arg;
use super::{IterInfo, Lowerer};
use crate::ir::{
    Callee, EscapeKind, Op, ReleaseKind, ReleasedBy, RootOrigin, SliceSpec, TyClass, ValueId,
    ValueKind, ViewOp,
};
use crate::models::{
    self, AtomicOp, Ctor, LayoutCtor, LeakKind, Meta, ReleaseHow, Sem, ViewKind, WrapKind,
};
use crate::oracle::Expr;
use crate::source::Span;

impl Lowerer<'_, '_, '_> {
    /// A bitwise copy of `src` (`mem::transmute_copy(&x)`, `ptr::read(&x)`). The copy of
    /// an owner owns the same memory: whichever of the two is forgotten, the other one
    /// carries the duty to release it, and if neither is, both release it.
    pub(crate) fn bit_copy(&mut self, src: Option<ValueId>, span: Span) -> ValueId {
        let Some(src) = src.filter(|&v| self.val(v).kind.is_memory()) else {
            return self.unknown(span);
        };
        let owner = self.val(src).kind.clone();
        let copy = self.derive_view(src, ViewOp::Whole, span);
        if let ValueKind::Root(r) = owner {
            self.val_mut(copy).kind = ValueKind::Root(r);
        }
        copy
    }

    /// `mem::forget(x)` of a value of a crate struct whose
    /// fields own memory of their own (a type with `impl Drop`, an `Arc`, a `Vec`):
    /// each such field is given up with it, unless the function reached it before (it
    /// may have been taken out). The fields stay reachable through the result, so a
    /// later `ptr::read(&me.f)` takes one back.
    pub(crate) fn forget_fields(&mut self, v: ValueId, api: &str, span: Span) -> ValueId {
        let out = self.unknown(span);
        let ty = if self.val(v).name.as_deref() == Some("self") {
            self.item.self_ty.clone()
        } else {
            self.declared.get(&v).cloned()
        };
        let Some(item) = ty.and_then(|t| self.ctx.index.struct_named(&t)).cloned() else {
            return out;
        };
        for f in &item.fields {
            if self.mentioned_fields.contains(&(v, f.name.clone()))
                || f.borrows_storage
                || !self.owns_memory(&f.ty_name)
            {
                continue;
            }
            let name = format!("{}.{}", self.val(v).name.as_deref().unwrap_or("_"), f.name);
            let field = self.alloc_value(
                name.clone(),
                1,
                None,
                ReleasedBy::Drop,
                TyClass::LocalStruct,
                span,
            );
            self.val_mut(field).name = Some(name);
            self.emit(
                Op::Escape {
                    value: field,
                    how: EscapeKind::Leaked {
                        api: api.to_string(),
                        kind: LeakKind::Forget,
                    },
                },
                span,
            );
            self.fields.insert((out, f.name.clone()), field);
        }
        out
    }

    /// Whether a value of the type named `ty` owns memory it releases when dropped: a
    /// crate type with `impl Drop`, or a library owner (`Arc`, `Vec`, `Box`).
    pub(crate) fn owns_memory(&self, ty: &str) -> bool {
        models::is_owning_type(ty) || self.has_drop_impl(ty)
    }

    /// Whether the crate implements `Drop` for its type named `ty`.
    pub(crate) fn has_drop_impl(&self, ty: &str) -> bool {
        self.ctx
            .index
            .methods_named(Some(ty), "drop")
            .into_iter()
            .filter_map(|m| self.ctx.index.fn_item(m))
            .any(|m| m.trait_name.as_deref() == Some("Drop") && m.self_ty.as_deref() == Some(ty))
    }

    /// A value owning new memory of `root`, with an `Alloc` op.
    pub(crate) fn alloc_value(
        &mut self,
        name: String,
        elem_bytes: u32,
        shape: Option<Vec<Expr>>,
        released_by: ReleasedBy,
        ty: TyClass,
        span: Span,
    ) -> ValueId {
        let size = element_count(shape.as_deref());
        self.alloc_sized(name, elem_bytes, shape, size, released_by, ty, span)
    }

    /// [`Self::alloc_value`] of `size` elements, also when the shape is not known.
    #[allow(clippy::too_many_arguments)]
    fn alloc_sized(
        &mut self,
        name: String,
        elem_bytes: u32,
        shape: Option<Vec<Expr>>,
        size: Option<Expr>,
        released_by: ReleasedBy,
        ty: TyClass,
        span: Span,
    ) -> ValueId {
        let root = self.new_root(
            name,
            RootOrigin::Alloc,
            elem_bytes,
            shape.clone(),
            released_by,
            span,
        );
        let v = self.new_value(None, ValueKind::Root(root), ty, span);
        self.val_mut(v).view = shape.map(|s| crate::oracle::View::contiguous(root, elem_bytes, s));
        self.emit(Op::Alloc { dst: v, root, size }, span);
        v
    }

    /// The size of a tensor parameter of unknown rank, as one symbol of its name: a
    /// copy of it has that many elements, whatever its shape, and the same number on
    /// every iteration of a loop.
    fn tensor_param_size(&self, v: ValueId) -> Option<Expr> {
        let val = self.val(v);
        let param = self.bodies.first().is_some_and(|b| b.params.contains(&v));
        let name = val.name.as_ref()?;
        (param && val.ty == TyClass::Tensor && !val.reassigned && is_plain_name(name))
            .then(|| Expr::sym(&models::tensor_size_symbol(name)))
    }

    /// Whether `Tensor` in this function's module is the type of a library whose
    /// tensors have no in-place ops (candle).
    fn tensors_are_immutable(&self) -> bool {
        let tensor = [models::TENSOR_TYPE.to_string()];
        let path = self.ctx.index.expand_path(&self.item.module, &tensor);
        path.first()
            .is_some_and(|krate| models::has_immutable_tensors(krate))
    }

    /// Records which op computed the memory `v` owns (see [`crate::ir::Producer`]).
    pub(crate) fn set_producer(
        &mut self,
        v: ValueId,
        op: &str,
        inputs: Vec<ValueId>,
        op_span: Span,
        lhs_ref: Option<Span>,
    ) {
        let Some(root) = self.val(v).kind.root() else {
            return;
        };
        // candle's tensors are immutable but for custom ops: no op has an in-place form.
        let immutable = self.val(v).ty == TyClass::Tensor && self.tensors_are_immutable();
        let producer = crate::ir::Producer {
            op: op.to_string(),
            inputs,
            op_span,
            lhs_ref,
            inplace_form: models::inplace_form(op)
                .filter(|_| !immutable)
                .map(str::to_string),
            saves_output: models::saves_output(op),
        };
        if let Some(r) = self.root_mut(root) {
            r.producer = Some(producer);
        }
    }

    /// A view of `src` derived by `how`, with an op; not memory when `src` is not.
    pub(crate) fn derive_view(&mut self, src: ValueId, how: ViewOp, span: Span) -> ValueId {
        let s = self.val(src).clone();
        if !s.kind.is_memory() {
            return self.unknown(span);
        }
        let kind = match s.kind {
            ValueKind::Root(r) => ValueKind::View(r),
            k => k,
        };
        let view = s
            .view
            .as_ref()
            .and_then(|v| super::geometry::apply(v, &how));
        // One element of a buffer is a number in memory, not a tensor.
        let element = matches!(how, ViewOp::Iter { chunk: None, .. })
            && (view.as_ref().is_some_and(|v| v.dims.is_empty())
                || matches!(s.ty, TyClass::Slice | TyClass::Vec));
        let ty = if element { TyClass::Unknown } else { s.ty };
        let dst = self.new_value(None, kind, ty, span);
        self.val_mut(dst).view = view;
        if element || self.elements.contains(&src) {
            self.elements.insert(dst);
        }
        if how == ViewOp::Whole {
            self.whole_of.insert(dst, src);
            if let Some(t) = self.declared.get(&src).cloned() {
                self.declared.insert(dst, t);
            }
        }
        self.emit(Op::View { dst, src, how }, span);
        dst
    }

    /// Applies a model's semantics to a call.
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn apply_sem(
        &mut self,
        sem: Sem,
        name: &str,
        recv: Option<Arg>,
        args: &[Arg],
        path_ty: TyClass,
        elem: Option<u32>,
        span: Span,
    ) -> ValueId {
        // Argument `n` counts the receiver as 0 for methods.
        let all: Vec<Arg> = recv.into_iter().chain(args.iter().copied()).collect();
        let nth = |n: usize| all.get(n).map(|a| a.value);
        let mem = |l: &Self, v: Option<ValueId>| v.filter(|&v| l.val(v).kind.is_memory());
        match sem {
            Sem::Clone => {
                if let Some(r) = recv {
                    let rv = self.val(r.value).clone();
                    // Cloning a view or a shared handle shares; cloning an owner copies.
                    if matches!(rv.kind, ValueKind::View(_) | ValueKind::RawPtr(_))
                        && rv.ty != TyClass::Vec
                        || rv.ty == TyClass::Shared
                    {
                        return self.derive_view(r.value, ViewOp::Whole, span);
                    }
                    if !rv.kind.is_memory() {
                        return self.copy_value(r.value, None, span);
                    }
                }
                self.apply_sem(
                    Sem::Alloc(Ctor::Like(0)),
                    name,
                    recv,
                    args,
                    path_ty,
                    elem,
                    span,
                )
            }
            Sem::Alloc(ctor) => {
                let (shape, bytes, ty) = self.ctor_shape(ctor, &all, path_ty);
                let read: Vec<ValueId> = all
                    .iter()
                    .map(|a| a.value)
                    .filter(|&v| self.val(v).kind.is_memory())
                    .collect();
                for v in read {
                    self.emit(
                        Op::Read {
                            value: v,
                            region: None,
                        },
                        span,
                    );
                }
                let ty = if ty == TyClass::Unknown { path_ty } else { ty };
                // A copy of a tensor parameter of unknown rank: its element count is
                // known as a symbol, its shape is not.
                let size = match ctor {
                    Ctor::Like(n) if shape.is_none() => {
                        all.get(n).and_then(|a| self.tensor_param_size(a.value))
                    }
                    _ => element_count(shape.as_deref()),
                };
                self.alloc_sized(
                    name.to_string(),
                    elem.unwrap_or(bytes),
                    shape,
                    size,
                    ReleasedBy::Drop,
                    ty,
                    span,
                )
            }
            // Written as a method call, the out-parameter's place is not at hand here:
            // nothing is known to be made.
            Sem::OwedAllocInto(_) => self.unknown(span),
            Sem::OwedAlloc => self.alloc_value(
                name.to_string(),
                elem.unwrap_or(4),
                None,
                ReleasedBy::Function("a modelled release".into()),
                path_ty,
                span,
            ),
            Sem::RawAlloc => {
                let (bytes, size) = match args.first().and_then(|a| self.layouts.get(&a.value)) {
                    Some((bytes, count)) => (*bytes, Some(count.clone())),
                    None => (1, None),
                };
                let v = self.alloc_value(
                    name.to_string(),
                    bytes,
                    size.map(|s| vec![s]),
                    ReleasedBy::Dealloc,
                    TyClass::RawPtr,
                    span,
                );
                let root = self.val(v).kind.root();
                let view = self
                    .val(v)
                    .view
                    .as_ref()
                    .map(super::geometry::pointer_to_start);
                let val = self.val_mut(v);
                val.kind = ValueKind::RawPtr(root);
                val.view = view;
                v
            }
            Sem::Realloc => {
                if let Some(p) = mem(self, nth(0)) {
                    self.emit(
                        Op::Release {
                            value: p,
                            how: ReleaseKind::Dealloc,
                        },
                        span,
                    );
                }
                self.apply_sem(
                    Sem::RawAlloc,
                    name,
                    None,
                    &args[args.len().min(2)..],
                    path_ty,
                    elem,
                    span,
                )
            }
            Sem::View(kind) => match nth(0) {
                Some(src) => self.model_view(kind, src, &all[1..], span),
                None => self.unknown(span),
            },
            Sem::ViewOfArg(n) => match mem(self, nth(n)) {
                Some(src) => self.derive_view(src, ViewOp::Opaque(name.to_string()), span),
                None => self.unknown(span),
            },
            Sem::Share => match nth(0) {
                Some(src) => self.derive_view(src, ViewOp::Whole, span),
                None => self.unknown(span),
            },
            Sem::RawPtr => match mem(self, nth(0)) {
                Some(src) => {
                    let v = self.derive_view(src, ViewOp::Whole, span);
                    let root = self.val(v).kind.root();
                    let view = self
                        .val(v)
                        .view
                        .as_ref()
                        .map(super::geometry::pointer_to_start);
                    let val = self.val_mut(v);
                    val.kind = ValueKind::RawPtr(root);
                    val.view = view;
                    val.ty = TyClass::RawPtr;
                    v
                }
                None => match nth(0).and_then(|recv| self.param_memory(recv, span)) {
                    Some(v) => v,
                    None => self.unknown(span),
                },
            },
            Sem::PtrStep(sign) => match (mem(self, nth(0)), nth(1)) {
                (Some(p), Some(n)) => {
                    let delta = self
                        .val(n)
                        .int
                        .clone()
                        .map(|d| if sign < 0 { -d } else { d });
                    let how = match delta {
                        Some(d) => ViewOp::Offset(d),
                        None => ViewOp::Opaque(name.to_string()),
                    };
                    let v = self.derive_view(p, how, span);
                    let root = self.val(p).kind.root();
                    if matches!(self.val(p).kind, ValueKind::RawPtr(_)) {
                        self.val_mut(v).kind = ValueKind::RawPtr(root);
                    }
                    v
                }
                _ => {
                    // Integer `a.add(b)` (std::ops::Add): plain arithmetic.
                    let (l, r) = (
                        nth(0).and_then(|v| self.val(v).int.clone()),
                        nth(1).and_then(|v| self.val(v).int.clone()),
                    );
                    let int = match (l, r) {
                        (Some(l), Some(r)) if sign < 0 => Some(&l - &r),
                        (Some(l), Some(r)) => Some(&l + &r),
                        _ => None,
                    };
                    self.scalar(int, span)
                }
            },
            Sem::FromRawParts => {
                let view = self.view_from_raw(nth(0), nth(1), None, span);
                // `slice::from_raw_parts_mut(p, n)` is a `&mut` to all `n` elements.
                if name.ends_with("from_raw_parts_mut") && recv.is_none() {
                    let several = self.val(view).view.as_ref().is_some_and(|r| {
                        !r.dims.is_empty() && r.dims.iter().any(|d| d.len.as_const() != Some(1))
                    });
                    if several {
                        self.claim(view, span);
                    }
                }
                view
            }
            Sem::FromShapePtr => self.view_from_raw(nth(1), None, nth(0), span),
            Sem::FromStrided => {
                let parts: Vec<Option<ValueId>> = (0..5).map(nth).collect();
                self.view_from_strided(&parts, span)
            }
            Sem::PtrRead
                if recv.is_none()
                    && mem(self, nth(0))
                        .is_some_and(|v| matches!(self.val(v).kind, ValueKind::Root(_))) =>
            {
                // `ptr::read(&v)` reads the owner itself, not an element through it; a
                // method named `read` on an owner (`lock.read()`) is no such copy.
                self.bit_copy(nth(0), span)
            }
            Sem::BitCopy(n) => self.bit_copy(nth(n), span),
            Sem::PtrRead => {
                if let Some(p) = mem(self, nth(0)) {
                    let region = self.val(p).view.clone();
                    self.emit(Op::Read { value: p, region }, span);
                }
                self.scalar(None, span)
            }
            Sem::PtrWrite => {
                if let Some(p) = mem(self, nth(0)) {
                    let region = self.val(p).view.clone();
                    self.emit(Op::Write { value: p, region }, span);
                }
                self.unknown(span)
            }
            Sem::InPlace(n) => match mem(self, nth(n)) {
                Some(dst) => {
                    let srcs = all
                        .iter()
                        .map(|a| a.value)
                        .filter(|&a| a != dst && self.val(a).kind.is_memory())
                        .collect();
                    self.emit(
                        Op::InPlace {
                            dst,
                            srcs,
                            method: name.to_string(),
                        },
                        span,
                    );
                    self.call_closure_args(args, span);
                    // tch: an in-place method returns an alias of its receiver.
                    self.derive_view(dst, ViewOp::Whole, span)
                }
                None => {
                    self.call_closure_args(args, span);
                    self.unknown(span)
                }
            },
            Sem::Overwrite(n) => {
                for (k, a) in all.iter().enumerate() {
                    if k != n && self.val(a.value).kind.is_memory() {
                        self.emit(
                            Op::Read {
                                value: a.value,
                                region: None,
                            },
                            span,
                        );
                    }
                }
                if let Some(dst) = mem(self, nth(n)) {
                    self.emit(
                        Op::Write {
                            value: dst,
                            region: None,
                        },
                        span,
                    );
                }
                self.unknown(span)
            }
            Sem::SliceSet => {
                let (Some(dst), Some(src)) = (mem(self, nth(0)), mem(self, nth(1))) else {
                    return self.unknown(span);
                };
                let int = |l: &Self, k: usize| nth(k).and_then(|v| l.val(v).int.clone());
                let axis = int(self, 2)
                    .and_then(|e| e.as_const())
                    .and_then(|c| usize::try_from(c).ok());
                let how = ViewOp::slice_set(axis, int(self, 3), self.val(src).view.as_ref())
                    .unwrap_or_else(|| ViewOp::Opaque(name.to_string()));
                let part = self.derive_view(dst, how, span);
                self.emit(
                    Op::Read {
                        value: src,
                        region: None,
                    },
                    span,
                );
                self.emit(
                    Op::Write {
                        value: part,
                        region: None,
                    },
                    span,
                );
                self.unknown(span)
            }
            Sem::ReadArg(n) | Sem::WriteArg(n) => {
                if let Some(v) = mem(self, nth(n)) {
                    let op = if matches!(sem, Sem::ReadArg(_)) {
                        Op::Read {
                            value: v,
                            region: None,
                        }
                    } else {
                        Op::Write {
                            value: v,
                            region: None,
                        }
                    };
                    self.emit(op, span);
                }
                self.unknown(span)
            }
            // `drop(p)` of a raw pointer does nothing to its memory.
            Sem::Release(ReleaseHow::Drop, n)
                if mem(self, nth(n))
                    .is_some_and(|v| matches!(self.val(v).kind, ValueKind::RawPtr(_))) =>
            {
                self.unknown(span)
            }
            // `ptr::drop_in_place(p)` runs the pointee's destructor and frees no buffer:
            // of a borrowed slice it drops the elements, and the memory stays with its
            // owner.
            Sem::Release(ReleaseHow::DropInPlace, n)
                if mem(self, nth(n)).is_some_and(|v| {
                    matches!(self.val(v).kind, ValueKind::RawPtr(_) | ValueKind::View(_))
                }) =>
            {
                if let Some(p) = mem(self, nth(n)) {
                    let region = self.val(p).view.clone();
                    self.emit(Op::Write { value: p, region }, span);
                }
                self.unknown(span)
            }
            Sem::Release(how, n) => {
                if let Some(v) = mem(self, nth(n)) {
                    let how = match how {
                        ReleaseHow::Drop | ReleaseHow::DropInPlace => ReleaseKind::Drop,
                        ReleaseHow::Dealloc => ReleaseKind::Dealloc,
                        ReleaseHow::BoxFromRaw => ReleaseKind::FromRaw("Box".into()),
                        ReleaseHow::Function => ReleaseKind::Function(name.to_string()),
                    };
                    let reclaim = matches!(how, ReleaseKind::FromRaw(_));
                    self.emit(Op::Release { value: v, how }, span);
                    if reclaim {
                        // The box (or vector) owns the memory again and frees it when
                        // dropped: an owner, not a view.
                        let owner = self.derive_view(v, ViewOp::Whole, span);
                        if let Some(root) = self.val(owner).kind.root() {
                            self.val_mut(owner).kind = ValueKind::Root(root);
                        }
                        return owner;
                    }
                }
                self.unknown(span)
            }
            Sem::Leak(kind, n) => match mem(self, nth(n)) {
                Some(v) => {
                    self.emit(
                        Op::Escape {
                            value: v,
                            how: EscapeKind::Leaked {
                                api: name.to_string(),
                                kind,
                            },
                        },
                        span,
                    );
                    let out = self.derive_view(v, ViewOp::Whole, span);
                    if kind == LeakKind::IntoRaw {
                        let root = self.val(v).kind.root();
                        self.val_mut(out).kind = ValueKind::RawPtr(root);
                        if let Some(r) = root.and_then(|r| self.root_mut(r)) {
                            r.released_by = ReleasedBy::BoxFromRaw;
                        }
                    }
                    out
                }
                // `ManuallyDrop::new(x)` keeps the fields at hand (`this.0`, `&*this`) to
                // be taken out by code of every shape; `mem::forget(x)` ends them.
                None if kind == LeakKind::Forget && name.ends_with("forget") => match nth(n) {
                    Some(v) => self.forget_fields(v, name, span),
                    None => self.unknown(span),
                },
                None => self.unknown(span),
            },
            Sem::StoreArg(n) => {
                if let Some(v) = mem(self, nth(n)) {
                    self.emit(
                        Op::Escape {
                            value: v,
                            how: EscapeKind::Stored,
                        },
                        span,
                    );
                }
                if let Some(r) = mem(self, nth(0)) {
                    self.emit(
                        Op::Write {
                            value: r,
                            region: None,
                        },
                        span,
                    );
                }
                self.unknown(span)
            }
            Sem::Par(kind) => self.par_source(kind, name, nth(0), &all[1.min(all.len())..], span),
            Sem::ZipFrom => self.zip_from(&all, span),
            Sem::RequiresGrad => match mem(self, nth(0)) {
                Some(v) => {
                    let on = !matches!(
                        nth(1)
                            .and_then(|b| self.val(b).int.clone())
                            .and_then(|e| e.as_const()),
                        Some(0)
                    );
                    self.emit(Op::RequiresGrad { value: v, on }, span);
                    if let Some(r) = self.val(v).kind.root().and_then(|r| self.root_mut(r)) {
                        r.requires_grad |= on;
                    }
                    self.derive_view(v, ViewOp::Whole, span)
                }
                None => self.unknown(span),
            },
            Sem::Metadata(meta) => self.metadata(meta, nth(0), span),
            Sem::SameStorage => {
                if let (Some(a), Some(b)) = (mem(self, nth(0)), mem(self, nth(1))) {
                    self.storage_tests.push((a, b));
                }
                self.scalar(None, span)
            }
            Sem::ShapeStrides => self.metadata(Meta::Other, nth(0), span),
            Sem::Transparent => match nth(0) {
                Some(v) => v,
                None => self.unknown(span),
            },
            Sem::Wrap(kind) => self.wrap_owner(kind, name, &all, path_ty, elem, span),
            Sem::Layout(ctor) => {
                let count = match ctor {
                    LayoutCtor::Array | LayoutCtor::SizeAlign => {
                        nth(0).and_then(|v| self.val(v).int.clone())
                    }
                    LayoutCtor::One => Some(Expr::int(1)),
                };
                let bytes = match ctor {
                    LayoutCtor::SizeAlign => 1,
                    LayoutCtor::Array | LayoutCtor::One => elem.unwrap_or(1),
                };
                match count {
                    Some(count) => {
                        let v = self.scalar(None, span);
                        self.layouts.insert(v, (bytes, count));
                        v
                    }
                    None => self.unknown_call(name.to_string(), &all, span),
                }
            }
            // The length changes, no element: nothing happens to memory.
            Sem::SetLen => self.scalar(None, span),
            Sem::SwapPlaces => {
                // `mem::swap(&mut table[i], &mut fresh)` of a variable: what it held now
                // lives in the other place, and it holds what was there, not known here.
                for v in [nth(0), nth(1)].into_iter().flatten() {
                    let whole = self.val(v).view.is_none();
                    let bound = self
                        .scopes
                        .iter()
                        .rev()
                        .find_map(|s| s.iter().find(|(_, &b)| b == v).map(|(n, _)| n.clone()));
                    if let Some(name) = bound.filter(|_| whole) {
                        self.emit(
                            Op::Escape {
                                value: v,
                                how: crate::ir::EscapeKind::Stored,
                            },
                            span,
                        );
                        let other = self.unknown(span);
                        self.val_mut(other).name = Some(name.clone());
                        self.bind(name, other);
                    }
                }
                // Each place is written where it is known; swapping is defined even
                // when the places are one (`ptr::swap`), so it is no in-place hazard.
                for p in [nth(0), nth(1)] {
                    if let Some(p) = mem(self, p) {
                        if let Some(region) = self.val(p).view.clone() {
                            self.emit(
                                Op::Write {
                                    value: p,
                                    region: Some(region),
                                },
                                span,
                            );
                        }
                    }
                }
                self.unknown(span)
            }
            Sem::TakeOut => {
                // The old value is another block from here on: a new owner of memory
                // this function did not allocate, and another block each time this
                // runs (in a loop, what one iteration takes out and drops is not what
                // the next one takes out).
                let name = nth(0)
                    .and_then(|v| self.val(v).name.clone())
                    .unwrap_or_else(|| name.to_string());
                let root =
                    self.new_root(name, RootOrigin::Unknown, 4, None, ReleasedBy::Drop, span);
                let v = self.new_value(None, ValueKind::Root(root), path_ty, span);
                self.emit(Op::Load { dst: v, root }, span);
                v
            }
            Sem::Atomic(op) => {
                if let Some(v) = mem(self, nth(0)) {
                    let write = op != AtomicOp::Load;
                    self.emit(
                        Op::Atomic {
                            value: v,
                            write,
                            inner: None,
                        },
                        span,
                    );
                }
                // What is stored is the atomic's to keep from here on.
                let stored = match op {
                    AtomicOp::Store | AtomicOp::Swap => nth(1),
                    AtomicOp::CompareExchange => nth(2),
                    AtomicOp::Load | AtomicOp::ReadModifyWrite => None,
                };
                if let Some(p) = mem(self, stored) {
                    self.emit(
                        Op::Escape {
                            value: p,
                            how: EscapeKind::Stored,
                        },
                        span,
                    );
                }
                self.call_closure_args(args, span);
                // The old value comes back as a copy, whatever it points to.
                self.unknown(span)
            }
            Sem::Read => {
                if let Some(v) = mem(self, nth(0)) {
                    self.emit(
                        Op::Read {
                            value: v,
                            region: None,
                        },
                        span,
                    );
                }
                self.call_closure_args(args, span);
                self.scalar(None, span)
            }
            Sem::Join
            | Sem::Scope
            | Sem::ThreadSpawn
            | Sem::NoGrad
            | Sem::Spawn
            | Sem::NullTest
            | Sem::NullPointer => self.unknown_call(name.to_string(), &all, span),
        }
    }

    /// `Box::new(v)`, `Arc::new(v)`, `ManuallyDrop::new(v)`, `Pin::new(v)`: an owner
    /// moved into the wrapper is the same buffer, now owned by the wrapper (which a
    /// `ManuallyDrop` never drops); anything else wrapped is what the wrapper's own model
    /// says.
    fn wrap_owner(
        &mut self,
        kind: WrapKind,
        name: &str,
        args: &[Arg],
        path_ty: TyClass,
        elem: Option<u32>,
        span: Span,
    ) -> ValueId {
        let owner = args.first().and_then(|a| match self.val(a.value).kind {
            ValueKind::Root(root) => Some((a.value, root)),
            _ => None,
        });
        let Some((src, root)) = owner else {
            return match kind {
                WrapKind::Heap => {
                    let sem = Sem::Alloc(Ctor::Unknown);
                    self.apply_sem(sem, name, None, args, path_ty, elem, span)
                }
                WrapKind::ManuallyDrop => {
                    let sem = Sem::Leak(LeakKind::Forget, 0);
                    self.apply_sem(sem, name, None, args, path_ty, elem, span)
                }
                WrapKind::Pin => self.unknown_call(name.to_string(), args, span),
            };
        };
        let v = self.copy_value(src, None, span);
        self.val_mut(v).kind = ValueKind::Root(root);
        if kind == WrapKind::ManuallyDrop {
            // Nothing drops a `ManuallyDrop` at the end of its scope.
            self.moved.insert(v);
            self.emit(
                Op::Escape {
                    value: src,
                    how: EscapeKind::Leaked {
                        api: name.to_string(),
                        kind: LeakKind::Forget,
                    },
                },
                span,
            );
        }
        self.emit(Op::Assign { dst: v, src }, span);
        v
    }

    /// `len()`, `dim()`, `shape()` of a value with a known geometry.
    pub(crate) fn metadata(&mut self, meta: Meta, v: Option<ValueId>, span: Span) -> ValueId {
        let lens: Option<Vec<Expr>> = v.and_then(|v| self.val(v).view.as_ref()).map(|w| w.shape());
        match (meta, lens) {
            // A view with no dimensions is one whose shape is not known (a slice from a
            // method this analysis does not see into), not a single element.
            (Meta::Count, Some(lens)) if !lens.is_empty() => {
                let total = lens.iter().fold(Expr::int(1), |acc, l| &acc * l);
                self.scalar(Some(total), span)
            }
            (Meta::Count, Some(_)) => {
                let len = v.map(|v| self.unknown_len(v));
                self.scalar(len, span)
            }
            // ndarray's matrix sizes.
            (Meta::Rows, Some(lens)) if lens.len() == 2 => self.scalar(lens.first().cloned(), span),
            (Meta::Cols, Some(lens)) if lens.len() == 2 => self.scalar(lens.get(1).cloned(), span),
            (Meta::Shape | Meta::Dim, Some(lens)) => {
                let parts: Vec<ValueId> = lens
                    .into_iter()
                    .map(|l| self.scalar(Some(l), span))
                    .collect();
                if parts.len() == 1 && meta == Meta::Dim {
                    return parts[0];
                }
                self.tuple_value(parts, span)
            }
            _ => self.scalar(None, span),
        }
    }

    /// Closures handed to a serial API run during the call.
    pub(crate) fn call_closure_args(&mut self, args: &[Arg], span: Span) {
        for a in args {
            if let ValueKind::Closure(b) = self.val(a.value).kind {
                self.emit(
                    Op::Call {
                        dst: None,
                        callee: Callee::Closure(b),
                        args: Vec::new(),
                    },
                    span,
                );
            }
        }
    }

    /// The integers of a shape argument: a tuple/array of sizes or a single size.
    pub(crate) fn int_list(&self, v: ValueId) -> Option<Vec<Expr>> {
        match self.tuples.get(&v) {
            Some(parts) => parts.iter().map(|&p| self.val(p).int.clone()).collect(),
            None => self.val(v).int.clone().map(|i| vec![i]),
        }
    }

    /// A shape written as a tuple of sizes: each size's integer, or, for a binding
    /// whose value is not known (`let [n, c, h, w] = x.dims()`), a symbol of its name.
    fn shape_list(&self, v: ValueId) -> Option<Vec<Expr>> {
        let Some(parts) = self.tuples.get(&v) else {
            return self.int_list(v);
        };
        parts
            .iter()
            .map(|&p| {
                let val = self.val(p);
                match (&val.int, &val.kind, &val.name) {
                    (Some(i), _, _) => Some(i.clone()),
                    (None, ValueKind::Unknown | ValueKind::Scalar, Some(name))
                        if !val.reassigned && is_plain_name(name) =>
                    {
                        Some(Expr::sym(name))
                    }
                    _ => None,
                }
            })
            .collect()
    }

    pub(crate) fn ctor_shape(
        &self,
        ctor: Ctor,
        all: &[Arg],
        path_ty: TyClass,
    ) -> (Option<Vec<Expr>>, u32, TyClass) {
        let arg = |n: usize| all.get(n).map(|a| a.value);
        match ctor {
            Ctor::Shape(n) => (arg(n).and_then(|v| self.shape_list(v)), 4, path_ty),
            Ctor::Len(n) => (
                arg(n)
                    .and_then(|v| self.val(v).int.clone())
                    .map(|l| vec![l]),
                4,
                TyClass::Vec,
            ),
            Ctor::Like(n) => match arg(n) {
                Some(v) => {
                    let val = self.val(v);
                    let shape = val.view.as_ref().map(|w| w.shape());
                    let bytes = val.view.as_ref().map_or(4, |w| w.elem_bytes);
                    let ty = match val.ty {
                        TyClass::ArrayView => TyClass::Array,
                        TyClass::Slice => TyClass::Vec,
                        t => t,
                    };
                    (shape, bytes, ty)
                }
                None => (None, 4, path_ty),
            },
            Ctor::Literal(n) => {
                let len = arg(n)
                    .and_then(|v| self.tuples.get(&v))
                    .map(|p| vec![Expr::int(p.len() as i64)]);
                (len, 8, TyClass::Array)
            }
            Ctor::Empty => (Some(vec![Expr::int(0)]), 4, TyClass::Vec),
            Ctor::Unknown => (None, 4, path_ty),
        }
    }

    /// A view method of a model: computes the view op from the arguments.
    pub(crate) fn model_view(
        &mut self,
        kind: ViewKind,
        src: ValueId,
        args: &[Arg],
        span: Span,
    ) -> ValueId {
        let int = |l: &Self, k: usize| args.get(k).and_then(|a| l.val(a.value).int.clone());
        let axis_arg = |l: &Self, k: usize| {
            int(l, k)
                .and_then(|e| e.as_const())
                .and_then(|c| usize::try_from(c).ok())
        };
        let how = match kind {
            ViewKind::Whole => ViewOp::Whole,
            ViewKind::SliceMacro => match args
                .first()
                .and_then(|a| self.slice_specs.get(&a.value))
                .cloned()
            {
                Some(specs) => ViewOp::Slice(specs),
                None => ViewOp::Opaque("slice".into()),
            },
            ViewKind::Narrow => match (axis_arg(self, 0), int(self, 1), int(self, 2)) {
                (Some(axis), Some(start), Some(len)) => ViewOp::narrowed(axis, start, len),
                _ => ViewOp::Opaque("narrow".into()),
            },
            ViewKind::TchSlice => match (axis_arg(self, 0), int(self, 3)) {
                (Some(axis), Some(step)) => ViewOp::on_axis(axis, int(self, 1), int(self, 2), step),
                _ => ViewOp::Opaque("slice".into()),
            },
            ViewKind::Transpose => ViewOp::Transpose,
            ViewKind::TransposeDims => match (
                axis_arg(self, 0),
                axis_arg(self, 1),
                self.val(src).view.as_ref().map(|v| v.ndim()),
            ) {
                (Some(a), Some(b), Some(n)) if a < n && b < n => {
                    let mut order: Vec<usize> = (0..n).collect();
                    order.swap(a, b);
                    ViewOp::Permute(order)
                }
                _ => ViewOp::Opaque("transpose".into()),
            },
            ViewKind::Permute => match args.first().and_then(|a| self.int_list(a.value)) {
                Some(list) => match list
                    .iter()
                    .map(|e| e.as_const().and_then(|c| usize::try_from(c).ok()))
                    .collect()
                {
                    Some(order) => ViewOp::Permute(order),
                    None => ViewOp::Opaque("permute".into()),
                },
                None => ViewOp::Opaque("permute".into()),
            },
            ViewKind::Broadcast => match args.first().and_then(|a| self.int_list(a.value)) {
                Some(shape) => ViewOp::Broadcast(shape),
                None => ViewOp::Opaque("broadcast".into()),
            },
            ViewKind::Reshape => match args.first().and_then(|a| self.int_list(a.value)) {
                Some(shape) => ViewOp::Reshape(shape),
                None => ViewOp::Opaque("reshape".into()),
            },
            ViewKind::Diag => ViewOp::Diag,
            ViewKind::IndexAxis(fixed) => {
                let (axis, idx) = match fixed {
                    Some(axis) => (Some(axis), int(self, 0)),
                    None => (self.axis_of(args.first()), int(self, 1)),
                };
                match (axis, idx) {
                    (Some(axis), Some(i)) => ViewOp::Iter {
                        axis,
                        chunk: None,
                        index: i,
                    },
                    _ => ViewOp::Opaque("index_axis".into()),
                }
            }
            ViewKind::SplitAt => {
                let (axis, at) = if args.len() >= 2 {
                    (self.axis_of(args.first()), int(self, 1))
                } else {
                    (Some(0), int(self, 0))
                };
                return self.split_pair(src, axis.zip(at), "split_at", span);
            }
            ViewKind::SplitOn(axis) => {
                let at = int(self, 0);
                return self.split_pair(src, at.map(|at| (axis, at)), "split", span);
            }
            ViewKind::Block => match (int(self, 0), int(self, 1), int(self, 2), int(self, 3)) {
                (Some(r), Some(c), Some(nr), Some(nc)) => {
                    ViewOp::Slice(vec![block_range(r, nr), block_range(c, nc)])
                }
                _ => ViewOp::Opaque("block".into()),
            },
            ViewKind::Ranges => {
                let specs: Option<Vec<SliceSpec>> = args
                    .iter()
                    .take(2)
                    .map(|a| self.range_of(a.value))
                    .collect();
                match specs {
                    Some(specs) if specs.len() == 2 => ViewOp::Slice(specs),
                    _ => ViewOp::Opaque("view_range".into()),
                }
            }
            ViewKind::TchIndex => {
                let parts = args
                    .first()
                    .map(|a| self.tuples.get(&a.value).cloned().unwrap_or(vec![a.value]));
                let specs: Option<Vec<SliceSpec>> = parts
                    .filter(|p| !p.is_empty())
                    .and_then(|p| p.iter().map(|&v| self.range_of(v)).collect());
                match specs {
                    Some(specs) => ViewOp::Slice(specs),
                    None => ViewOp::Opaque("i".into()),
                }
            }
            ViewKind::RangePair(axis) => {
                let parts: Vec<ValueId> = args
                    .iter()
                    .take(2)
                    .map(|a| {
                        let how = match self.range_of(a.value) {
                            Some(SliceSpec::Range { start, end, step }) => {
                                ViewOp::on_axis(axis, start, end, step)
                            }
                            _ => ViewOp::Opaque("range".into()),
                        };
                        self.derive_view(src, how, span)
                    })
                    .collect();
                return self.tuple_value(parts, span);
            }
            ViewKind::Chunks | ViewKind::AxisIter => {
                let (axis, chunk) = match (kind, args.len()) {
                    (ViewKind::Chunks, 1) => (Some(0), int(self, 0)),
                    (ViewKind::Chunks, _) => (self.axis_of(args.first()), int(self, 1)),
                    (_, 0) => (Some(0), None),
                    _ => (self.axis_of(args.first()), None),
                };
                // A chunk size not known is still one size for all chunks.
                let chunk = match (kind, chunk) {
                    (ViewKind::Chunks, None) => Some(Expr::sym(&self.fresh_symbol("chunk"))),
                    (_, c) => c,
                };
                let v = self.derive_view(src, ViewOp::Whole, span);
                if let Some(axis) = axis {
                    if kind == ViewKind::AxisIter || chunk.is_some() {
                        self.iters.insert(
                            v,
                            IterInfo {
                                sources: vec![super::IterSource {
                                    value: v,
                                    axis,
                                    chunk,
                                }],
                                ..IterInfo::default()
                            },
                        );
                    }
                }
                return v;
            }
            ViewKind::Other => ViewOp::Opaque("view".into()),
        };
        self.derive_view(src, how, span)
    }

    /// The two parts of `src` split at `at` on `axis`, as a pair; parts of unknown
    /// geometry (named `opaque`) when the split is not known.
    fn split_pair(
        &mut self,
        src: ValueId,
        split: Option<(usize, Expr)>,
        opaque: &str,
        span: Span,
    ) -> ValueId {
        let parts = [false, true].map(|second| {
            let how = match &split {
                Some((axis, at)) => ViewOp::Split {
                    axis: *axis,
                    at: at.clone(),
                    second,
                },
                None => ViewOp::Opaque(opaque.into()),
            };
            self.derive_view(src, how, span)
        });
        self.tuple_value(parts.to_vec(), span)
    }

    /// The four blocks of the matrix `src` split at `(row, col)`, as a tuple in faer's
    /// order (top left, top right, bottom left, bottom right); blocks of unknown
    /// geometry when the split is not known.
    pub(crate) fn quadrants(
        &mut self,
        src: ValueId,
        split: Option<(Expr, Expr)>,
        span: Span,
    ) -> ValueId {
        let half = |at: &Expr, second: bool| SliceSpec::Range {
            start: second.then(|| at.clone()),
            end: (!second).then(|| at.clone()),
            step: Expr::int(1),
        };
        let parts =
            [(false, false), (false, true), (true, false), (true, true)].map(|(bottom, right)| {
                let how = match &split {
                    Some((row, col)) => ViewOp::Slice(vec![half(row, bottom), half(col, right)]),
                    None => ViewOp::Opaque("split_at".into()),
                };
                self.derive_view(src, how, span)
            });
        self.tuple_value(parts.to_vec(), span)
    }

    /// One axis of a block written as a range (`1..3`) or an index (`2`).
    fn range_of(&self, v: ValueId) -> Option<SliceSpec> {
        if let Some((lo, hi)) = self.iters.get(&v).and_then(|i| i.range.clone()) {
            return Some(SliceSpec::Range {
                start: Some(lo),
                end: Some(hi),
                step: Expr::int(1),
            });
        }
        let i = self.val(v).int.clone()?;
        Some(block_range(i, Expr::int(1)))
    }

    /// The axis an `Axis(k)` argument names.
    pub(crate) fn axis_of(&self, a: Option<&Arg>) -> Option<usize> {
        let v = a?.value;
        self.val(v)
            .int
            .as_ref()?
            .as_const()
            .and_then(|c| usize::try_from(c).ok())
    }
}

/// The number of elements of a buffer of `shape`.
fn element_count(shape: Option<&[Expr]>) -> Option<Expr> {
    shape.map(|s| s.iter().fold(Expr::int(1), |acc, d| &acc * d))
}

/// `start..start + len` with step 1.
fn block_range(start: Expr, len: Expr) -> SliceSpec {
    SliceSpec::Range {
        end: Some(&start + &len),
        start: Some(start),
        step: Expr::int(1),
    }
}

/// A binding's name that can stand for its value (`batch_size`, not `self.n` or `_`).
fn is_plain_name(name: &str) -> bool {
    !name.starts_with('_') && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}
