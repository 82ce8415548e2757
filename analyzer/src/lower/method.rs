//! Lowering of method calls: crate-local methods, modelled library methods, and integer
//! arithmetic on sizes.

use super::call::Arg;
use super::Lowerer;
use crate::ir::{ValueId, ValueKind};
use crate::models::{self, IntOp, ParKind, Sem, ViewKind};
use crate::oracle::Expr;
use crate::source::Span;

impl Lowerer<'_, '_, '_> {
    pub(crate) fn method_call(&mut self, m: &syn::ExprMethodCall, span: Span) -> ValueId {
        if let Some(v) = self.folder_call(m, span) {
            return v;
        }
        let method = m.method.to_string();
        let mut recv = self.expr(&m.receiver);
        // `shape.into_shape().to_raw_dims()`: the receiver is a temporary value of a crate
        // struct holding buffers, dropped at the end of the statement.
        if let syn::Expr::MethodCall(inner) = &*m.receiver {
            if !self.val(recv).kind.is_memory() {
                if let Some(ty) = self.owned_result_of_methods(&inner.method.to_string()) {
                    let at = self.val(recv).span;
                    recv = self.owned_value_of(&ty, at);
                }
            }
        }
        if models::collects(&method) {
            if let Some(v) = self.collected_handles(recv, span) {
                return v;
            }
            if self.pointer_lists.contains_key(&recv) {
                return recv;
            }
        }
        let mark = self.stmt_mark();
        let mapping = models::maps_items(&method) && m.args.len() == 1;
        if mapping {
            self.bind_mapped_item(m, recv, span);
        }
        let v = self.method_call_on(m, recv, &method, span);
        self.pending_item = None;
        if mapping {
            // The closure the adapter called, or the function it names.
            let closure = self.closure_called_since(mark);
            let passing = self.item_passing(&m.receiver, recv);
            if let Some(list) = self.mapped_pointers(recv, closure, passing, span) {
                return list;
            }
            let path = match &m.args[0] {
                syn::Expr::Path(p) => Some(&p.path),
                _ => None,
            };
            self.note_owed_items(v, closure, path);
        }
        // `self.row_stride()`: a getter of the crate (every method of that name takes
        // `&self` and nothing else) called on `self` gives one number per call of the
        // method, named by the call, so two offsets built from it can be compared.
        // Only on `self`: sizes of other values multiply into offsets the solver
        // cannot decide, and an undecided query is reported as a possible overlap.
        let on_self = self.val(recv).name.as_deref() == Some("self");
        let getter = on_self && m.args.is_empty() && {
            let candidates = self.ctx.index.methods_named(None, &method);
            !candidates.is_empty()
                && candidates.iter().all(|&i| {
                    self.ctx
                        .index
                        .fn_item(i)
                        .is_some_and(|f| f.shared_receiver && f.params.len() == 1)
                })
        };
        if getter && self.val(v).int.is_none() && !self.val(v).kind.is_memory() {
            if let Some(name) = self.val(recv).name.clone() {
                self.val_mut(v).int = Some(Expr::sym(&format!("{name}.{method}()")));
            }
        }
        v
    }

    fn method_call_on(
        &mut self,
        m: &syn::ExprMethodCall,
        recv: ValueId,
        method: &str,
        span: Span,
    ) -> ValueId {
        let method = method.to_string();
        if models::consumes_receiver(&method) {
            self.mark_moved(recv);
        }
        // A method of a library type the receiver is declared with (`pool.execute(..)`
        // on a `threadpool::ThreadPool`): its model is a `Type::method` path row.
        if let Some(owner) = self.declared.get(&recv).cloned() {
            let path = [owner.clone(), method.clone()];
            if let Some(Sem::ThreadSpawn) = self.ctx.models.path(&path) {
                let args: Vec<&syn::Expr> = m.args.iter().collect();
                return self.parallel_call(Sem::ThreadSpawn, &args, &path.join("::"), span);
            }
        }
        let recv_ty = self.val(recv).ty;
        // `shape.into_shape()` on `shape: S` with `S: IntoShape`, a trait of the crate:
        // the crate's method, whatever a library's method of that name does.
        let sem = self
            .ctx
            .models
            .method(recv_ty, &method)
            .filter(|_| !self.crate_trait_method(recv, &method));
        // `shards[i].write()` on one lock of a table of locks: the lock word is written.
        let lock = self.val(recv).kind.is_memory()
            && self
                .val(recv)
                .view
                .as_ref()
                .is_some_and(|v| v.dims.is_empty())
            && self
                .root_of(recv)
                .and_then(|r| r.elem_type.as_deref())
                .is_some_and(|t| models::takes_lock(t, &method));
        let sem = if lock {
            Some(Sem::Atomic(models::AtomicOp::ReadModifyWrite))
        } else {
            sem
        };
        if sem == Some(Sem::ThreadSpawn) {
            let args: Vec<&syn::Expr> = m.args.iter().collect();
            return self.parallel_call(Sem::ThreadSpawn, &args, &method, span);
        }
        // Parallel consumers lower their closure argument as a task.
        if let Some(Sem::Par(ParKind::Consume | ParKind::ArrayForEach(_))) | Some(Sem::Spawn) = sem
        {
            let args: Vec<&syn::Expr> = m.args.iter().collect();
            if let Some(v) =
                self.parallel_method(sem.unwrap_or(Sem::Read), recv, &method, &args, span)
            {
                return v;
            }
        }
        if sem == Some(Sem::NullTest) && m.args.is_empty() && self.val(recv).kind.is_memory() {
            let v = self.scalar(None, span);
            self.null_tests.insert(v, (recv, true));
            return v;
        }
        // A null test of something that is not a pointer is no model of anything.
        let sem = sem.filter(|s| *s != Sem::NullTest);
        // faer's `m.split_at_mut(row, col)`: the four blocks of a matrix. ndarray's
        // `split_at(Axis(k), i)` names its axis with `Axis(..)` or a binding, never with
        // a number computed in place.
        let matrix = self.val(recv).view.as_ref().is_some_and(|v| v.ndim() == 2);
        if sem == Some(Sem::View(ViewKind::SplitAt))
            && matrix
            && m.args.len() == 2
            && is_computed_index(&m.args[0])
        {
            let args = self.lower_args(m.args.iter());
            let at = |k: usize| self.val(args[k].value).int.clone();
            let split = at(0).zip(at(1));
            return self.quadrants(recv, split, span);
        }
        if let Some(v) = self.int_method(recv, &method, &m.args, span) {
            return v;
        }
        if sem == Some(Sem::Transparent) {
            for a in &m.args {
                self.expr(a);
            }
            return recv;
        }
        if sem == Some(Sem::ShapeStrides) {
            // `(n, m).strides((s0, s1))` / `.f()`: a shape with strides for from_shape_ptr.
            let args = self.lower_args(m.args.iter());
            let out = self.copy_value(recv, None, span);
            if let Some(a) = args.first() {
                let parts = self
                    .tuples
                    .get(&a.value)
                    .cloned()
                    .unwrap_or_else(|| vec![a.value]);
                self.strides.insert(out, parts);
            }
            return out;
        }
        let args = self.lower_args(m.args.iter());
        let local = self.local_method(recv, &method);
        // A crate's own `flatten_` is what it defines, not tch's in-place naming rule.
        let naming_only = self.ctx.models.in_place_by_naming_only(&method);
        let modelled = if naming_only { None } else { sem };
        // A crate's own `store`, `push` or `write` on a receiver known to be its struct
        // is what it defines; on another receiver, a method found by its name alone may
        // be another type's.
        let known_struct = self.receiver_struct(recv).is_some();
        // One object of the struct, not a buffer of them (`slots.push(..)`).
        // One element of a table of the crate's structs (`LOCKS[i]`) is one object too.
        let one_element = known_struct
            && self
                .val(recv)
                .view
                .as_ref()
                .is_some_and(|v| v.dims.is_empty());
        let one_object = self.is_struct_memory(recv)
            || one_element
            || self.constructed.contains_key(&recv)
            || self.val(recv).name.as_deref() == Some("self")
                && self
                    .item
                    .self_ty
                    .as_deref()
                    .is_some_and(|t| self.ctx.index.struct_named(t).is_some());
        let prefer_local = match modelled {
            None | Some(Sem::Read | Sem::Metadata(_)) => true,
            Some(Sem::Atomic(_)) => known_struct,
            _ => known_struct && one_object,
        };
        if let (Some(idx), true) = (local, prefer_local) {
            let mut all = vec![Arg {
                value: recv,
                by_ref: true,
            }];
            all.extend(args);
            return self.local_call(idx, &all, span);
        }
        match sem {
            Some(sem) => {
                let roots_before = self.roots.len();
                let v = self.apply_sem(
                    sem,
                    &method,
                    Some(Arg {
                        value: recv,
                        by_ref: true,
                    }),
                    &args,
                    recv_ty,
                    None,
                    span,
                );
                if let ValueKind::Root(r) = self.val(v).kind {
                    if r.0 as usize >= roots_before {
                        let inputs = std::iter::once(recv)
                            .chain(args.iter().map(|a| a.value))
                            .filter(|&x| self.val(x).kind.is_memory())
                            .collect();
                        let op_span = self.span(m.method.span());
                        self.set_producer(v, &method, inputs, op_span, None);
                    }
                }
                v
            }
            None => {
                if let Some(idx) = local {
                    let mut all = vec![Arg {
                        value: recv,
                        by_ref: true,
                    }];
                    all.extend(args);
                    return self.local_call(idx, &all, span);
                }
                let mut all = vec![Arg {
                    value: recv,
                    by_ref: true,
                }];
                all.extend(args);
                let v = self.unknown_call(method, &all, span);
                self.pointers_written_through(m.args.iter(), span);
                v
            }
        }
    }

    /// Integer methods on sizes and indices (`n.min(k)`, `n.div_ceil(k)`).
    pub(crate) fn int_method(
        &mut self,
        recv: ValueId,
        method: &str,
        args: &syn::punctuated::Punctuated<syn::Expr, syn::Token![,]>,
        span: Span,
    ) -> Option<ValueId> {
        let op = models::int_method(method)?;
        if self.val(recv).kind != ValueKind::Scalar || args.len() != 1 {
            return None;
        }
        let a = self.expr(&args[0]);
        let (l, r) = (self.val(recv).int.clone(), self.val(a).int.clone());
        let int = match (l, r) {
            (Some(l), Some(r)) => match op {
                IntOp::Min => Some(l.minimum(&r)),
                IntOp::Max => Some(l.maximum(&r)),
                IntOp::DivCeil if r.as_const().is_some_and(|c| c > 0) || r.as_const().is_none() => {
                    Some((&l + &(&r - 1)).div_floor(r))
                }
                IntOp::DivCeil => None,
                IntOp::SaturatingSub => Some((&l - &r).maximum(&Expr::int(0))),
                IntOp::Add => Some(&l + &r),
                IntOp::Pow => match r.as_const() {
                    Some(k @ 0..=8) => Some((0..k).fold(Expr::int(1), |acc, _| &acc * &l)),
                    _ => None,
                },
            },
            _ => None,
        };
        Some(self.scalar(int, span))
    }

    /// The crate struct a receiver is known to be: `self` inside `impl T` is a `T`, and
    /// an element or object of a buffer of `T` (`cells[t]`, `&Stats`) is one too.
    pub(crate) fn receiver_struct(&self, recv: ValueId) -> Option<String> {
        if self.val(recv).name.as_deref() == Some("self") {
            return self.item.self_ty.clone();
        }
        // An object a crate function made (`let map = ShardedMap::new(64)`).
        if let Some(ty) = self.constructed.get(&recv) {
            return Some(ty.clone());
        }
        let v = self.val(recv);
        // A field of the object (`stats.hits`) is not the object.
        let is_field = self.fields.values().any(|&f| f == recv);
        if is_field || !matches!(v.kind, ValueKind::View(_) | ValueKind::Root(_)) {
            return None;
        }
        let root = self.roots.get(v.kind.root()?.0 as usize)?;
        let ty = root.elem_type.as_deref()?;
        self.ctx.index.struct_named(ty).map(|s| s.name.clone())
    }

    /// A crate-local method this call may mean: on the receiver's known local type,
    /// or the only method of that name in the crate.
    pub(crate) fn local_method(&self, recv: ValueId, method: &str) -> Option<usize> {
        let own_type = self.receiver_struct(recv);
        let candidates = self.ctx.index.methods_named(own_type.as_deref(), method);
        let with_self: Vec<usize> = candidates
            .into_iter()
            .filter(|&i| self.ctx.index.fn_item(i).is_some_and(|f| f.has_receiver))
            .collect();
        match with_self.as_slice() {
            [one] => Some(*one),
            _ => None,
        }
    }

    /// Whether `recv` is declared with a generic parameter of this function bounded by a
    /// trait the crate implements `method` for.
    fn crate_trait_method(&self, recv: ValueId, method: &str) -> bool {
        let Some(ty) = self.declared.get(&recv) else {
            return false;
        };
        let generics = &self.sig.generics;
        let bounds_of_param = generics
            .type_params()
            .filter(|p| p.ident == ty.as_str())
            .flat_map(|p| p.bounds.iter());
        let bounds_in_where = generics
            .where_clause
            .iter()
            .flat_map(|w| w.predicates.iter())
            .filter_map(|p| match p {
                syn::WherePredicate::Type(t)
                    if crate::index::type_name(&t.bounded_ty).as_deref() == Some(ty.as_str()) =>
                {
                    Some(t.bounds.iter())
                }
                _ => None,
            })
            .flatten();
        let traits: Vec<String> = bounds_of_param
            .chain(bounds_in_where)
            .filter_map(|b| match b {
                syn::TypeParamBound::Trait(t) => {
                    t.path.segments.last().map(|s| s.ident.to_string())
                }
                _ => None,
            })
            .collect();
        !traits.is_empty()
            && self.ctx.index.fns.iter().any(|f| {
                f.name == method && f.trait_name.as_ref().is_some_and(|t| traits.contains(t))
            })
    }
}

/// An integer written in place (`2`, `n / 2`, `a.nrows()`), not a binding or a
/// constructor call: what a row index is and an `Axis` never is.
fn is_computed_index(e: &syn::Expr) -> bool {
    match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(_),
            ..
        })
        | syn::Expr::Binary(_)
        | syn::Expr::MethodCall(_) => true,
        syn::Expr::Paren(p) => is_computed_index(&p.expr),
        _ => false,
    }
}
