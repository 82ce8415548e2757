//! Lowering: one function's syntax to its [`FnIr`].
//!
//! The lowering walks statements and expressions once, building the control-flow graph
//! as it goes (`if`, `match`, loops with labelled `break`/`continue`, `return`, `?`),
//! tracking which bindings hold tensor memory from constructors, parameter types,
//! models and callee summaries, and emitting one op per memory effect. Recursion is
//! bounded: past [`MAX_DEPTH`] nested expressions the rest becomes an unknown value and
//! the function is marked truncated, so deeply nested input cannot overflow the stack.

mod expr;
pub(crate) use expr::{owned_type_name, param_handed_back};
pub mod geometry;
pub mod int;
mod parallel;
mod place;
pub mod slice_macro;
pub mod ty;

use std::collections::HashMap;

use crate::index::{FnAst, FnItem, ItemIndex};
use crate::ir::{
    Block, BlockId, Body, BodyId, BodyKind, FnId, FnIr, Op, ReleasedBy, ReturnKind, Root,
    RootOrigin, Stmt, Task, Terminator, TyClass, Value, ValueId, ValueKind,
};
use crate::models::ApiModel;
use crate::oracle::{Dim, Expr, RootId, View};
use crate::source::{FileId, Span};
use crate::summary::FnSummary;

/// Deepest expression nesting lowered; deeper parts are unknown.
pub const MAX_DEPTH: u32 = 128;

/// Most statements lowered in one function; a generated monster beyond it is truncated.
const MAX_STMTS: usize = 200_000;

/// What the lowering of one function may consult.
pub struct LowerCtx<'x> {
    pub index: &'x ItemIndex,
    pub models: &'x [ApiModel],
    /// Summaries by function index; `None` while not yet computed.
    pub summaries: &'x [Option<FnSummary>],
}

/// How an iterator value walks memory or integers.
#[derive(Clone, Debug, Default)]
pub(crate) struct IterInfo {
    /// Memory iterated: each item is a sub-view of `value` along `axis`, or a chunk.
    pub sources: Vec<IterSource>,
    /// An integer range `lo..hi` instead.
    pub range: Option<(Expr, Expr)>,
    pub parallel: bool,
    pub enumerate: bool,
}

#[derive(Clone, Debug)]
pub(crate) struct IterSource {
    pub value: ValueId,
    pub axis: usize,
    pub chunk: Option<Expr>,
}

#[derive(Clone, Debug)]
struct LoopCtx {
    label: Option<String>,
    break_to: BlockId,
    continue_to: BlockId,
    result: ValueId,
    /// Iteration symbol and range of a `for` loop over a range or a collection.
    iteration: Option<(String, Expr, Expr)>,
    body: usize,
    /// A labelled block (`'a: { .. }`), which only a labelled `break` leaves.
    is_block: bool,
    /// Index of the first scope inside the loop: `break`/`continue` leave it and the
    /// scopes nested in it.
    scope_depth: usize,
}

/// Tasks spawned on one scope handle while its closure is lowered.
#[derive(Debug)]
struct ScopeFrame {
    tasks: Vec<Task>,
    loop_base: usize,
}

struct BodyBuilder {
    kind: BodyKind,
    no_grad: bool,
    params: Vec<ValueId>,
    blocks: Vec<Block>,
    span: Span,
}

pub(crate) struct Lowerer<'c, 'x, 'a> {
    ctx: &'c LowerCtx<'x>,
    item: &'c FnItem,
    sig: &'a syn::Signature,
    file: FileId,
    values: Vec<Value>,
    /// Body each value was defined in, to find captures.
    value_body: Vec<usize>,
    roots: Vec<Root>,
    bodies: Vec<BodyBuilder>,
    cur_body: usize,
    cur_block: BlockId,
    scopes: Vec<HashMap<String, ValueId>>,
    loops: Vec<LoopCtx>,
    scope_frames: Vec<ScopeFrame>,
    tuples: HashMap<ValueId, Vec<ValueId>>,
    strides: HashMap<ValueId, Vec<ValueId>>,
    iters: HashMap<ValueId, IterInfo>,
    slice_specs: HashMap<ValueId, Vec<crate::ir::SliceSpec>>,
    fields: HashMap<(ValueId, String), ValueId>,
    /// Merge values of `if`/`match` that already received an arm.
    join_seen: std::collections::HashSet<ValueId>,
    /// Owning values moved somewhere (assigned, passed by value, returned, stored,
    /// released): they are not dropped at the end of their scope.
    moved: std::collections::HashSet<ValueId>,
    /// `p.is_null()` results: the pointer tested, and whether `true` means null.
    null_tests: HashMap<ValueId, (ValueId, bool)>,
    /// `Layout`s by value: element size and element count.
    layouts: HashMap<ValueId, (u32, Expr)>,
    callees: Vec<FnId>,
    depth: u32,
    stmt_count: usize,
    truncated: bool,
    fresh: u32,
    /// Ranges of the serial `for` loops' symbols, for [`FnIr::loop_ranges`].
    loop_ranges: Vec<(BodyId, crate::ir::Iteration)>,
}

/// Lowers function `idx` of the index, whose syntax is `ast`. Must run on the thread
/// that parsed the function's file: spans are read from that thread's source positions.
pub fn lower_fn(ctx: &LowerCtx, idx: usize, ast: FnAst<'_>) -> Option<FnIr> {
    let item = ctx.index.fn_item(idx)?;
    let mut l = Lowerer::new(ctx, item, ast.sig);
    l.lower_signature();
    let result = l.block_expr(ast.block);
    if l.is_live() {
        l.emit_return_escape(
            result,
            Span::from_proc_macro(l.file, ast.block.brace_token.span.close()),
        );
        let span = Span::from_proc_macro(l.file, ast.block.brace_token.span.close());
        l.terminate(
            Terminator::Return {
                value: Some(result),
                kind: ReturnKind::End,
            },
            span,
        );
    }
    Some(l.finish(FnId(idx as u32)))
}

impl<'c, 'x, 'a> Lowerer<'c, 'x, 'a> {
    fn new(ctx: &'c LowerCtx<'x>, item: &'c FnItem, sig: &'a syn::Signature) -> Self {
        let span = Span::from_proc_macro(item.file, sig.ident.span());
        Lowerer {
            ctx,
            item,
            sig,
            file: item.file,
            values: Vec::new(),
            value_body: Vec::new(),
            roots: Vec::new(),
            bodies: vec![BodyBuilder {
                kind: BodyKind::Function,
                no_grad: false,
                params: Vec::new(),
                blocks: vec![empty_block(span, 0)],
                span,
            }],
            cur_body: 0,
            cur_block: BlockId(0),
            scopes: vec![HashMap::new()],
            loops: Vec::new(),
            scope_frames: Vec::new(),
            tuples: HashMap::new(),
            strides: HashMap::new(),
            iters: HashMap::new(),
            slice_specs: HashMap::new(),
            fields: HashMap::new(),
            join_seen: std::collections::HashSet::new(),
            layouts: HashMap::new(),
            moved: std::collections::HashSet::new(),
            null_tests: HashMap::new(),
            callees: Vec::new(),
            depth: 0,
            stmt_count: 0,
            truncated: false,
            fresh: 0,
            loop_ranges: Vec::new(),
        }
    }

    fn finish(self, id: FnId) -> FnIr {
        let mut callees = self.callees;
        callees.sort_unstable();
        callees.dedup();
        FnIr {
            id,
            name: self.item.name.clone(),
            path: self.item.path(),
            self_ty: self.item.self_ty.clone(),
            annotations: self.item.annotations.clone(),
            values: self.values,
            roots: self.roots,
            bodies: self
                .bodies
                .into_iter()
                .map(|b| Body {
                    kind: b.kind,
                    no_grad: b.no_grad,
                    params: b.params,
                    blocks: b.blocks,
                    span: b.span,
                })
                .collect(),
            callees,
            span: self.item.span,
            truncated: self.truncated,
            loop_ranges: self.loop_ranges,
        }
    }

    // ----- building blocks -------------------------------------------------------

    pub(crate) fn span(&self, s: proc_macro2::Span) -> Span {
        Span::from_proc_macro(self.file, s)
    }

    pub(crate) fn new_value(
        &mut self,
        name: Option<String>,
        kind: ValueKind,
        ty: TyClass,
        span: Span,
    ) -> ValueId {
        let id = ValueId(self.values.len() as u32);
        self.values.push(Value {
            name,
            kind,
            view: None,
            int: None,
            ty,
            span,
            reassigned: false,
        });
        self.value_body.push(self.cur_body);
        id
    }

    pub(crate) fn unknown(&mut self, span: Span) -> ValueId {
        self.new_value(None, ValueKind::Unknown, TyClass::Unknown, span)
    }

    pub(crate) fn scalar(&mut self, int: Option<Expr>, span: Span) -> ValueId {
        let v = self.new_value(None, ValueKind::Scalar, TyClass::Scalar, span);
        self.values[v.0 as usize].int = int;
        v
    }

    pub(crate) fn val(&self, v: ValueId) -> &Value {
        &self.values[v.0 as usize]
    }

    pub(crate) fn val_mut(&mut self, v: ValueId) -> &mut Value {
        &mut self.values[v.0 as usize]
    }

    pub(crate) fn new_root(
        &mut self,
        name: String,
        origin: RootOrigin,
        elem_bytes: u32,
        shape: Option<Vec<Expr>>,
        released_by: ReleasedBy,
        span: Span,
    ) -> RootId {
        let id = RootId(self.roots.len() as u32);
        self.roots.push(Root {
            id,
            name,
            origin,
            elem_bytes,
            elem_type: None,
            shape,
            released_by,
            requires_grad: false,
            producer: None,
            span,
        });
        id
    }

    pub(crate) fn root_mut(&mut self, r: RootId) -> Option<&mut Root> {
        self.roots.get_mut(r.0 as usize)
    }

    pub(crate) fn emit(&mut self, op: Op, span: Span) {
        if self.stmt_count >= MAX_STMTS {
            self.truncated = true;
            return;
        }
        self.stmt_count += 1;
        match &op {
            // A drop on one exit leaves the owner alive on the other paths.
            Op::Release {
                how: crate::ir::ReleaseKind::ScopeEnd,
                ..
            } => {}
            Op::Escape { value: v, .. } | Op::Release { value: v, .. } => {
                if matches!(self.val(*v).kind, ValueKind::Root(_)) {
                    self.moved.insert(*v);
                }
            }
            _ => {}
        }
        let block = self.cur_block.0 as usize;
        if let Some(b) = self.bodies[self.cur_body].blocks.get_mut(block) {
            b.stmts.push(Stmt { op, span });
        }
    }

    pub(crate) fn new_block(&mut self, span: Span) -> BlockId {
        let depth = self
            .loops
            .iter()
            .filter(|l| l.body == self.cur_body && !l.is_block)
            .count() as u32;
        let body = &mut self.bodies[self.cur_body];
        body.blocks.push(empty_block(span, depth));
        BlockId(body.blocks.len() as u32 - 1)
    }

    /// Ends the current block; code after it (dead code) goes to a fresh block.
    pub(crate) fn terminate(&mut self, term: Terminator, span: Span) {
        let block = self.cur_block.0 as usize;
        if let Some(b) = self.bodies[self.cur_body].blocks.get_mut(block) {
            b.term = term;
            b.term_span = span;
        }
        self.cur_block = self.new_block(span);
    }

    /// A block is live when something jumps to it or it is a body's entry.
    fn is_live(&self) -> bool {
        let cur = self.cur_block;
        cur.0 == 0
            || self.bodies[self.cur_body]
                .blocks
                .iter()
                .any(|b| b.term.successors().contains(&cur))
    }

    pub(crate) fn goto(&mut self, target: BlockId, span: Span) {
        self.terminate(Terminator::Goto(target), span);
        self.cur_block = target;
    }

    pub(crate) fn switch_to(&mut self, b: BlockId) {
        self.cur_block = b;
    }

    pub(crate) fn fresh_symbol(&mut self, base: &str) -> String {
        self.fresh += 1;
        format!("{base}#{}", self.fresh)
    }

    // ----- bindings --------------------------------------------------------------

    pub(crate) fn bind(&mut self, name: String, v: ValueId) {
        if let Some(scope) = self.scopes.last_mut() {
            scope.insert(name, v);
        }
    }

    pub(crate) fn lookup(&mut self, name: &str) -> Option<ValueId> {
        let v = self
            .scopes
            .iter()
            .rev()
            .find_map(|s| s.get(name).copied())?;
        let defined_in = self.value_body.get(v.0 as usize).copied().unwrap_or(0);
        if defined_in != self.cur_body {
            // A closure reads an outer binding: record the capture in every closure body
            // between the definition and here.
            let mut b = self.cur_body;
            while b != defined_in {
                let BodyKind::Closure { parent, captures } = &mut self.bodies[b].kind else {
                    break;
                };
                if !captures.contains(&v) {
                    captures.push(v);
                }
                b = parent.0 as usize;
            }
        }
        Some(v)
    }

    pub(crate) fn push_scope(&mut self) {
        self.scopes.push(HashMap::new());
    }

    pub(crate) fn pop_scope(&mut self) {
        if self.scopes.len() > 1 {
            self.scopes.pop();
        }
    }

    /// Gives `v` the binding name `name`: in place when `v` is an unnamed temporary,
    /// else through a new value and an `Assign`.
    pub(crate) fn bind_value(&mut self, name: String, v: ValueId, span: Span) -> ValueId {
        let target = if self.val(v).name.is_none() && self.value_body[v.0 as usize] == self.cur_body
        {
            self.val_mut(v).name = Some(name.clone());
            self.val_mut(v).span = span;
            v
        } else {
            let copy = self.copy_value(v, Some(name.clone()), span);
            if self.val(v).kind.is_memory() {
                self.emit(Op::Assign { dst: copy, src: v }, span);
            }
            copy
        };
        self.bind(name, target);
        target
    }

    /// A new value with the same memory, geometry and integer as `v`.
    pub(crate) fn copy_value(&mut self, v: ValueId, name: Option<String>, span: Span) -> ValueId {
        let src = self.val(v).clone();
        let kind = match src.kind {
            ValueKind::Root(r) => ValueKind::View(r),
            k => k,
        };
        let c = self.new_value(name, kind, src.ty, span);
        let dst = self.val_mut(c);
        dst.view = src.view;
        dst.int = src.int;
        if let Some(t) = self.tuples.get(&v).cloned() {
            self.tuples.insert(c, t);
        }
        if let Some(it) = self.iters.get(&v).cloned() {
            self.iters.insert(c, it);
        }
        c
    }

    /// Binds the names of `pat` to `v` (or to its tuple parts).
    pub(crate) fn bind_pat(&mut self, pat: &syn::Pat, v: ValueId) {
        self.bind_pat_at(pat, v, 0);
    }

    fn bind_pat_at(&mut self, pat: &syn::Pat, v: ValueId, depth: u32) {
        if depth > MAX_DEPTH {
            self.truncated = true;
            return;
        }
        match pat {
            syn::Pat::Ident(i) => {
                let span = self.span(i.ident.span());
                match &i.subpat {
                    Some((_, sub)) => {
                        self.bind_pat_at(sub, v, depth + 1);
                        self.bind_value(i.ident.to_string(), v, span);
                    }
                    None => {
                        let bound = self.bind_value(i.ident.to_string(), v, span);
                        if i.mutability.is_some() && self.val(bound).int.is_some() {
                            // A `mut` integer changes: it is some value, not its first one.
                            let sym = self.fresh_symbol(&i.ident.to_string());
                            self.val_mut(bound).int = Some(Expr::sym(&sym));
                        }
                    }
                }
            }
            syn::Pat::Type(t) => {
                self.bind_pat_at(&t.pat, v, depth + 1);
                if let Some(name) = pat_ident(&t.pat) {
                    if let Some(bound) = self.lookup(&name) {
                        self.apply_declared_type(bound, &t.ty);
                    }
                }
            }
            syn::Pat::Reference(r) => self.bind_pat_at(&r.pat, v, depth + 1),
            syn::Pat::Paren(p) => self.bind_pat_at(&p.pat, v, depth + 1),
            syn::Pat::Tuple(t) => self.bind_parts(t.elems.iter(), v, depth),
            syn::Pat::TupleStruct(t) if t.elems.len() == 1 && is_wrapper_variant(&t.path) => {
                // `Some(x)`, `Ok(x)`: the payload is the scrutinee's own memory.
                let inner = if self.val(v).kind.is_memory() {
                    let span = self.val(v).span;
                    self.derive_view(v, crate::ir::ViewOp::Whole, span)
                } else {
                    v
                };
                if let Some(p) = t.elems.first() {
                    self.bind_pat_at(p, inner, depth + 1);
                }
            }
            syn::Pat::TupleStruct(t) => self.bind_parts(t.elems.iter(), v, depth),
            syn::Pat::Slice(s) => self.bind_parts(s.elems.iter(), v, depth),
            syn::Pat::Struct(s) => {
                for f in &s.fields {
                    let part = self.part_of(v, self.val(v).span);
                    self.bind_pat_at(&f.pat, part, depth + 1);
                }
            }
            syn::Pat::Or(o) => {
                if let Some(first) = o.cases.first() {
                    self.bind_pat_at(first, v, depth + 1);
                }
            }
            _ => {}
        }
    }

    fn bind_parts<'p>(&mut self, pats: impl Iterator<Item = &'p syn::Pat>, v: ValueId, depth: u32) {
        let parts = self.tuples.get(&v).cloned();
        for (k, p) in pats.enumerate() {
            let part = match parts.as_ref().and_then(|ps| ps.get(k)) {
                Some(&part) => part,
                None => self.part_of(v, self.val(v).span),
            };
            self.bind_pat_at(p, part, depth + 1);
        }
    }

    /// A part of `v` whose place inside it is not known: same memory, no geometry.
    pub(crate) fn part_of(&mut self, v: ValueId, span: Span) -> ValueId {
        if self.val(v).kind.is_memory() {
            return self.derive_view(v, crate::ir::ViewOp::Opaque("part".into()), span);
        }
        self.unknown(span)
    }

    /// A `let x: T` annotation refines what is known of `x`.
    fn apply_declared_type(&mut self, v: ValueId, ty: &syn::Type) {
        let class = ty::classify_type(ty);
        if class != TyClass::Unknown && self.val(v).ty == TyClass::Unknown {
            self.val_mut(v).ty = class;
        }
        let (ValueKind::Root(root), Some(element)) =
            (self.val(v).kind.clone(), ty::element_type(ty))
        else {
            return;
        };
        let bytes = ty::elem_bytes_of_type(ty).or_else(|| {
            self.ctx
                .index
                .type_size(element, 0)
                .and_then(|b| u32::try_from(b).ok())
        });
        let name = crate::index::type_name(element);
        if let Some(r) = self.root_mut(root) {
            if let Some(bytes) = bytes {
                r.elem_bytes = bytes;
            }
            r.elem_type = name.or(r.elem_type.take());
        }
        if let (Some(bytes), Some(view)) = (bytes, &mut self.val_mut(v).view) {
            view.elem_bytes = bytes;
        }
    }

    // ----- signature -------------------------------------------------------------

    fn lower_signature(&mut self) {
        let sig = self.sig;
        for (i, arg) in sig.inputs.iter().enumerate() {
            match arg {
                syn::FnArg::Receiver(r) => {
                    let span = self.span(r.self_token.span);
                    let v = self.param_value("self".into(), i, &r.ty, span, true);
                    self.bind("self".into(), v);
                    self.bodies[0].params.push(v);
                }
                syn::FnArg::Typed(t) => {
                    let name = pat_ident(&t.pat).unwrap_or_else(|| format!("arg{i}"));
                    let span = self.span(t.colon_token.span);
                    let v = self.param_value(name, i, &t.ty, span, false);
                    self.bodies[0].params.push(v);
                    // The binding names the parameter's value itself.
                    self.val_mut(v).name = None;
                    self.bind_pat(&t.pat, v);
                }
            }
        }
    }

    /// A parameter's value: memory-typed parameters reach a root of their own, with a
    /// symbolic geometry (`a.len`, `a.dim0`, `a.stride0`) where the rank is known.
    fn param_value(
        &mut self,
        name: String,
        index: usize,
        ty: &syn::Type,
        span: Span,
        receiver: bool,
    ) -> ValueId {
        let class = if receiver {
            match self
                .item
                .self_ty
                .as_deref()
                .map(crate::models::class_of_type_name)
            {
                Some(TyClass::Unknown) | None => TyClass::LocalStruct,
                Some(c) => c,
            }
        } else {
            ty::classify_type(ty)
        };
        let v = self.new_value(Some(name.clone()), ValueKind::Scalar, class, span);
        match class {
            TyClass::Scalar => self.val_mut(v).int = Some(Expr::sym(&name)),
            TyClass::Unknown | TyClass::LocalStruct => self.val_mut(v).kind = ValueKind::Unknown,
            _ => {
                let element = ty::element_type(ty);
                let elem = ty::elem_bytes_of_type(ty)
                    .or_else(|| {
                        element
                            .and_then(|e| self.ctx.index.type_size(e, 0))
                            .and_then(|b| u32::try_from(b).ok())
                    })
                    .unwrap_or(4);
                let elem_type = element.and_then(crate::index::type_name);
                let ndim = ty::ndim_of_type(ty);
                let root = self.new_root(
                    name.clone(),
                    RootOrigin::Param(index),
                    elem,
                    None,
                    ReleasedBy::NotOwned,
                    span,
                );
                let inner_class = match ty {
                    syn::Type::Reference(r) => ty::classify_type(&r.elem),
                    other => ty::classify_type(other),
                };
                let layout_class = if inner_class == TyClass::Array {
                    TyClass::Array
                } else {
                    class
                };
                let view = ndim.map(|n| symbolic_view(root, elem, &name, n, layout_class));
                if let Some(r) = self.root_mut(root) {
                    r.elem_type = elem_type;
                }
                if let (Some(view), Some(r)) = (&view, self.root_mut(root)) {
                    r.shape = Some(view.shape());
                }
                let kind = match class {
                    TyClass::RawPtr => ValueKind::RawPtr(Some(root)),
                    TyClass::Vec | TyClass::Array | TyClass::Tensor if !is_reference(ty) => {
                        ValueKind::Root(root)
                    }
                    _ => ValueKind::View(root),
                };
                let val = self.val_mut(v);
                val.kind = kind;
                val.view = if class == TyClass::RawPtr {
                    view.as_ref().map(geometry::pointer_to_start)
                } else {
                    view
                };
            }
        }
        v
    }

    // ----- statements and blocks -------------------------------------------------

    pub(crate) fn block_expr(&mut self, block: &syn::Block) -> ValueId {
        self.push_scope();
        let mut last = None;
        let n = block.stmts.len();
        for (i, stmt) in block.stmts.iter().enumerate() {
            let v = self.stmt(stmt);
            if i + 1 == n {
                if let syn::Stmt::Expr(_, None) = stmt {
                    last = v;
                }
            }
        }
        let close = self.span(block.brace_token.span.close());
        self.drop_scope(last, close);
        self.pop_scope();
        match last {
            Some(v) => v,
            None => self.unknown(close),
        }
    }

    /// Releases at the closing brace what the scope's bindings own and did not move
    /// (RAII drops), when control reaches the brace.
    fn drop_scope(&mut self, tail: Option<ValueId>, span: Span) {
        if !self.is_live() {
            return;
        }
        let innermost = self.scopes.len().saturating_sub(1);
        self.emit_scope_drops(innermost, tail, span);
    }

    /// Releases what the bindings of scopes `from..` own and did not move, for a
    /// `return`, `?`, `break` or `continue` that leaves those scopes: RAII owners are
    /// dropped on every exit, not only at the closing brace.
    pub(crate) fn drop_scopes_on_exit(&mut self, from: usize, except: Option<ValueId>, span: Span) {
        if self.is_live() {
            self.emit_scope_drops(from, except, span);
        }
    }

    fn emit_scope_drops(&mut self, from: usize, except: Option<ValueId>, span: Span) {
        let mut owned: Vec<ValueId> = self
            .scopes
            .iter()
            .skip(from)
            .flat_map(|scope| scope.values().copied())
            .filter(|&v| Some(v) != except && !self.moved.contains(&v))
            .filter(|&v| self.value_body.get(v.0 as usize) == Some(&self.cur_body))
            .filter(|&v| match self.val(v).kind {
                ValueKind::Root(r) => self.roots.get(r.0 as usize).is_some_and(|r| {
                    r.origin == RootOrigin::Alloc && r.released_by == ReleasedBy::Drop
                }),
                _ => false,
            })
            .collect();
        owned.sort_unstable();
        owned.dedup();
        // Locals drop in reverse order of declaration.
        for v in owned.into_iter().rev() {
            self.emit(
                Op::Release {
                    value: v,
                    how: crate::ir::ReleaseKind::ScopeEnd,
                },
                span,
            );
        }
    }

    fn stmt(&mut self, stmt: &syn::Stmt) -> Option<ValueId> {
        match stmt {
            syn::Stmt::Local(local) => {
                self.local(local);
                None
            }
            syn::Stmt::Expr(e, _) => Some(self.expr(e)),
            syn::Stmt::Macro(m) => Some(self.macro_call(&m.mac)),
            syn::Stmt::Item(_) => None,
        }
    }

    fn local(&mut self, local: &syn::Local) {
        let Some(init) = &local.init else {
            // `let x;` binds an unknown value assigned later.
            let span = self.span(local.let_token.span);
            let v = self.unknown(span);
            self.bind_pat(&local.pat, v);
            return;
        };
        let v = self.expr(&init.expr);
        match &init.diverge {
            Some((_, else_expr)) => {
                // `let PAT = e else { diverge };`
                let span = self.span(local.let_token.span);
                let ok = self.new_block(span);
                let els = self.new_block(span);
                self.terminate(
                    Terminator::Branch {
                        cond: Some(v),
                        targets: vec![ok, els],
                    },
                    span,
                );
                self.switch_to(els);
                self.expr(else_expr);
                if self.is_live() {
                    self.terminate(Terminator::Unreachable, span);
                }
                self.switch_to(ok);
                self.bind_pat(&local.pat, v);
            }
            None => self.bind_pat(&local.pat, v),
        }
        // `let b = a;` moves an owner: `b` owns the buffer now and `a` is not dropped.
        let binds_name = !matches!(local.pat, syn::Pat::Wild(_));
        if let (true, syn::Expr::Path(_), ValueKind::Root(root)) =
            (binds_name, &*init.expr, self.val(v).kind.clone())
        {
            self.moved.insert(v);
            if let Some(bound) = pat_ident(&local.pat).and_then(|n| self.lookup(&n)) {
                if bound != v {
                    self.val_mut(bound).kind = ValueKind::Root(root);
                }
            }
        }
    }

    /// Records the return of `v` as an escape when it carries memory. Memory inside a
    /// returned tuple, array or struct literal reaches the caller too, so every part
    /// that carries memory escapes with it.
    pub(crate) fn emit_return_escape(&mut self, v: ValueId, span: Span) {
        let mut work = vec![v];
        let mut seen = std::collections::HashSet::new();
        while let Some(v) = work.pop() {
            if !seen.insert(v) {
                continue;
            }
            if self.val(v).kind.is_memory() {
                self.emit(
                    Op::Escape {
                        value: v,
                        how: crate::ir::EscapeKind::Returned,
                    },
                    span,
                );
            }
            if let Some(parts) = self.tuples.get(&v) {
                work.extend(parts.iter().rev());
            }
            // Fields in name order, so the ops come out in the same order every run.
            let mut fields: Vec<(&String, ValueId)> = self
                .fields
                .iter()
                .filter(|((owner, _), _)| *owner == v)
                .map(|((_, name), &field)| (name, field))
                .collect();
            fields.sort();
            work.extend(fields.into_iter().rev().map(|(_, field)| field));
        }
    }

    // ----- closures --------------------------------------------------------------

    /// Lowers a closure as a nested body; `param_values` pre-binds its parameters
    /// (the items of a parallel iteration, a scope handle).
    pub(crate) fn closure_body(
        &mut self,
        c: &syn::ExprClosure,
        param_values: &[ValueId],
    ) -> BodyId {
        let span = self.span(c.or1_token.span);
        let bindings: Vec<(syn::Pat, ValueId)> = c
            .inputs
            .iter()
            .enumerate()
            .map(|(k, p)| {
                let v = match param_values.get(k) {
                    Some(&v) => v,
                    None => self.unknown(span),
                };
                (p.clone(), v)
            })
            .collect();
        let body = self.nested_body(&bindings, &c.body, span);
        if c.capture.is_some() {
            // A `move` closure owns what it captures.
            if let BodyKind::Closure { captures, .. } = &self.bodies[body.0 as usize].kind {
                for v in captures.clone() {
                    if matches!(self.val(v).kind, ValueKind::Root(_)) {
                        self.moved.insert(v);
                    }
                }
            }
        }
        body
    }

    /// Lowers `body` as a nested body whose parameters are `bindings`.
    pub(crate) fn nested_body(
        &mut self,
        bindings: &[(syn::Pat, ValueId)],
        body: &syn::Expr,
        span: Span,
    ) -> BodyId {
        let saved_body = self.cur_body;
        let saved_block = self.cur_block;
        let id = self.bodies.len();
        self.bodies.push(BodyBuilder {
            kind: BodyKind::Closure {
                parent: BodyId(saved_body as u32),
                captures: Vec::new(),
            },
            no_grad: false,
            params: Vec::new(),
            blocks: vec![empty_block(span, 0)],
            span,
        });
        self.cur_body = id;
        self.cur_block = BlockId(0);
        self.push_scope();
        for (p, v) in bindings {
            self.bodies[id].params.push(*v);
            self.bind_pat(p, *v);
        }
        let result = self.expr(body);
        if self.is_live() {
            self.emit_return_escape(result, span);
            self.terminate(
                Terminator::Return {
                    value: Some(result),
                    kind: ReturnKind::End,
                },
                span,
            );
        }
        self.pop_scope();
        self.cur_body = saved_body;
        self.cur_block = saved_block;
        BodyId(id as u32)
    }

    /// The iteration a spawn at this point belongs to: the innermost `for` loop inside
    /// the current scope frame.
    pub(crate) fn enclosing_iteration(&self, base: usize) -> Option<crate::ir::Iteration> {
        self.loops.iter().skip(base).rev().find_map(|l| {
            l.iteration
                .as_ref()
                .map(|(sym, lo, hi)| crate::ir::Iteration {
                    symbol: sym.clone(),
                    lo: lo.clone(),
                    hi: hi.clone(),
                    value: None,
                })
        })
    }
}

fn empty_block(span: Span, loop_depth: u32) -> Block {
    Block {
        stmts: Vec::new(),
        term: Terminator::Unreachable,
        term_span: span,
        loop_depth,
    }
}

fn is_wrapper_variant(path: &syn::Path) -> bool {
    path.segments
        .last()
        .is_some_and(|s| matches!(s.ident.to_string().as_str(), "Some" | "Ok" | "Err"))
}

fn is_reference(ty: &syn::Type) -> bool {
    matches!(ty, syn::Type::Reference(_))
}

pub(crate) fn pat_ident(pat: &syn::Pat) -> Option<String> {
    match pat {
        syn::Pat::Ident(i) => Some(i.ident.to_string()),
        syn::Pat::Type(t) => pat_ident(&t.pat),
        syn::Pat::Reference(r) => pat_ident(&r.pat),
        _ => None,
    }
}

/// The geometry of a parameter of rank `ndim`: owned arrays and slices are contiguous,
/// views have symbolic strides.
fn symbolic_view(root: RootId, elem: u32, name: &str, ndim: usize, class: TyClass) -> View {
    if ndim == 1 && matches!(class, TyClass::Slice | TyClass::Vec | TyClass::RawPtr) {
        return View::contiguous(root, elem, vec![Expr::sym(&format!("{name}.len"))]);
    }
    let lens: Vec<Expr> = (0..ndim)
        .map(|k| Expr::sym(&format!("{name}.dim{k}")))
        .collect();
    if class == TyClass::Array {
        return View::contiguous(root, elem, lens);
    }
    View {
        root,
        elem_bytes: elem,
        offset: Expr::int(0),
        dims: lens
            .into_iter()
            .enumerate()
            .map(|(k, len)| Dim {
                len,
                stride: Expr::sym(&format!("{name}.stride{k}")),
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use crate::ir::{
        EscapeKind, FnIr, Op, ParallelKind, ReturnKind, Terminator, ValueKind, ViewOp,
    };
    use crate::program::analyze_text;

    fn lower_one(text: &str) -> FnIr {
        let (ir, _) = analyze_text(text);
        ir.functions().last().cloned().expect("one function")
    }

    fn ops(f: &FnIr) -> Vec<&Op> {
        f.stmts().map(|(_, _, s)| &s.op).collect()
    }

    #[test]
    fn slice_parameter_has_a_symbolic_contiguous_geometry() {
        let f = lower_one("fn k(a: &mut [f32]) { a[3] = 1.0; }");
        let write = ops(&f).into_iter().find_map(|op| match op {
            Op::Write {
                region: Some(r), ..
            } => Some(r.clone()),
            _ => None,
        });
        let region = write.expect("a write with a region");
        assert_eq!(region.offset.as_const(), Some(3));
        assert_eq!(region.elem_bytes, 4);
    }

    #[test]
    fn mutable_integer_is_a_symbol_not_its_first_value() {
        let f =
            lower_one("fn k(a: &mut [f32]) { let mut i = 0; while i < 4 { a[i] = 0.0; i += 1; } }");
        let region = ops(&f).into_iter().find_map(|op| match op {
            Op::Write {
                region: Some(r), ..
            } => Some(r.clone()),
            _ => None,
        });
        assert_eq!(region.expect("region").offset.as_const(), None);
    }

    #[test]
    fn closure_records_the_outer_bindings_it_captures() {
        let f = lower_one("fn k(a: &mut [f32], s: f32) { let g = |i: usize| a[i] *= s; }");
        let crate::ir::BodyKind::Closure { captures, .. } = &f.bodies[1].kind else {
            panic!("closure body expected");
        };
        let names: Vec<_> = captures
            .iter()
            .filter_map(|&c| f.value(c).name.clone())
            .collect();
        assert!(
            names.contains(&"a".to_string()) && names.contains(&"s".to_string()),
            "{names:?}"
        );
    }

    #[test]
    fn early_return_and_question_mark_end_blocks_with_their_kind() {
        let f = lower_one(
            "fn k(x: Option<u8>) -> Option<u8> { let y = x?; if y == 0 { return None; } Some(y) }",
        );
        let kinds: Vec<ReturnKind> = f.bodies[0]
            .blocks
            .iter()
            .filter_map(|b| match b.term {
                Terminator::Return { kind, .. } => Some(kind),
                _ => None,
            })
            .collect();
        for k in [ReturnKind::Try, ReturnKind::Early, ReturnKind::End] {
            assert!(kinds.contains(&k), "{kinds:?}");
        }
    }

    #[test]
    fn labelled_continue_jumps_to_the_outer_loop_header() {
        let f = lower_one("fn k(n: usize) { 'o: for i in 0..n { loop { continue 'o; } } }");
        let body = &f.bodies[0];
        // The outer header is the block the entry jumps to.
        let Terminator::Goto(header) = body.blocks[0].term else {
            panic!("entry jumps to the loop header");
        };
        let jumps_back = body.predecessors()[header.0 as usize].len();
        assert!(
            jumps_back >= 2,
            "entry and the `continue 'o` both reach the header"
        );
    }

    #[test]
    fn provenance_survives_usize_casts_and_pointer_steps() {
        let f = lower_one(
            "fn k(v: &mut Vec<f32>) { let p = v.as_mut_ptr(); let a = unsafe { p.add(2) } as usize; \
             unsafe { *(a as *mut f32) = 0.0 }; }",
        );
        let write = ops(&f).into_iter().find_map(|op| match op {
            Op::Write { value, region } => Some((*value, region.clone())),
            _ => None,
        });
        let (value, region) = write.expect("a write through the pointer");
        assert!(matches!(f.value(value).kind, ValueKind::RawPtr(Some(_))));
        assert_eq!(region.expect("region").offset.as_const(), Some(2));
    }

    #[test]
    fn rayon_join_lowers_both_closures_as_tasks() {
        let f = lower_one(
            "fn k(a: &mut [f32], b: &mut [f32]) { rayon::join(|| a[0] = 1.0, || b[0] = 2.0); }",
        );
        let region = ops(&f).into_iter().find_map(|op| match op {
            Op::Parallel(r) => Some(r.clone()),
            _ => None,
        });
        let region = region.expect("a parallel region");
        assert_eq!(region.kind, ParallelKind::Join);
        assert_eq!(region.tasks.len(), 2);
    }

    #[test]
    fn parallel_chunks_index_views_by_the_iteration_symbol() {
        let f = lower_one("fn k(a: &mut [f32]) { a.par_chunks_mut(8).for_each(|c| c[0] = 0.0); }");
        let region = ops(&f).into_iter().find_map(|op| match op {
            Op::Parallel(r) => Some(r.clone()),
            _ => None,
        });
        let task = region
            .expect("region")
            .tasks
            .into_iter()
            .next()
            .expect("a task");
        let it = task.iteration.expect("replicated");
        let writes: Vec<_> = f
            .body(task.body)
            .blocks
            .iter()
            .flat_map(|b| &b.stmts)
            .collect();
        let Some(Op::Write {
            region: Some(r), ..
        }) = writes
            .iter()
            .map(|s| &s.op)
            .find(|op| matches!(op, Op::Write { .. }))
        else {
            panic!("the task writes its chunk");
        };
        assert!(r.offset.mentions(&it.symbol), "{}", r.offset);
    }

    #[test]
    fn returned_allocation_escapes() {
        let f = lower_one("fn k(n: usize) -> Vec<f32> { let v = vec![0.0f32; n]; v }");
        assert!(ops(&f).iter().any(|op| matches!(
            op,
            Op::Escape {
                how: EscapeKind::Returned,
                ..
            }
        )));
        assert!(ops(&f)
            .iter()
            .any(|op| matches!(op, Op::Alloc { size: Some(_), .. })));
    }

    #[test]
    fn unknown_macros_are_opaque_and_huge_literals_unknown() {
        let f = lower_one(
            "fn k(a: &mut [f32]) { mystery!(a[0] = 1.0); a[99999999999999999999] = 0.0; }",
        );
        let writes: Vec<_> = ops(&f)
            .into_iter()
            .filter_map(|op| match op {
                Op::Write { region, .. } => Some(region.clone()),
                _ => None,
            })
            .collect();
        assert_eq!(writes.len(), 1, "only the write outside the macro");
        assert!(
            writes[0].is_none(),
            "the index does not fit i64, so the region is unknown"
        );
    }

    #[test]
    fn s_macro_with_negative_step_becomes_a_slice_op() {
        let f = lower_one(
            "fn k() { let a = Array2::<f32>::zeros((3, 4)); let v = a.slice(s![.., ..;-2]); }",
        );
        let slice = ops(&f).into_iter().find_map(|op| match op {
            Op::View {
                dst,
                how: ViewOp::Slice(_),
                ..
            } => Some(*dst),
            _ => None,
        });
        let view = f
            .value(slice.expect("a slice"))
            .view
            .clone()
            .expect("known geometry");
        assert_eq!(view.dims[1].stride.as_const(), Some(-2));
        assert_eq!(view.offset.as_const(), Some(3));
    }
}

#[cfg(test)]
mod ownership_tests {
    use crate::ir::{Op, ReleaseKind};
    use crate::program::analyze_text;

    fn releases(text: &str) -> Vec<ReleaseKind> {
        let (ir, _) = analyze_text(text);
        let f = ir.functions().last().cloned().expect("a function");
        f.stmts()
            .filter_map(|(_, _, s)| match &s.op {
                Op::Release { how, .. } => Some(how.clone()),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn owner_is_dropped_at_the_end_of_its_block() {
        let got = releases("fn k(n: usize) { { let v = vec![0u8; n]; } }");
        assert_eq!(got, vec![ReleaseKind::ScopeEnd]);
    }

    #[test]
    fn moved_returned_or_explicitly_dropped_owners_are_not_dropped_again() {
        assert!(releases("fn k(n: usize) -> Vec<u8> { let v = vec![0u8; n]; v }").is_empty());
        assert_eq!(
            releases("fn k(n: usize) { let v = vec![0u8; n]; drop(v); }"),
            vec![ReleaseKind::Drop]
        );
        // `let w = v` moves: one drop, of `w`.
        assert_eq!(
            releases("fn k(n: usize) { let v = vec![0u8; n]; let w = v; }"),
            vec![ReleaseKind::ScopeEnd]
        );
        // `let _ = v` binds nothing and moves nothing.
        assert_eq!(
            releases("fn k(n: usize) { let v = vec![0u8; n]; let _ = v; }"),
            vec![ReleaseKind::ScopeEnd]
        );
    }

    #[test]
    fn owners_are_dropped_on_every_early_exit() {
        let got = releases(
            "fn k(n: usize, r: Result<(), ()>) -> Result<(), ()> { let v = vec![0u8; n]; \
             if n == 0 { return Ok(()); } r?; Ok(()) }",
        );
        // The early return, the `?` error path and the closing brace.
        assert_eq!(got, vec![ReleaseKind::ScopeEnd; 3]);
    }

    #[test]
    fn break_and_continue_drop_the_loop_body_owners_only() {
        let got = releases(
            "fn k(n: usize) { let outer = vec![0u8; n]; for i in 0..n { let v = vec![0u8; n]; \
             if i == 1 { continue; } if i == 2 { break; } } }",
        );
        // `v` at `continue`, at `break` and at its closing brace; `outer` once.
        assert_eq!(got, vec![ReleaseKind::ScopeEnd; 4]);
    }

    #[test]
    fn returned_or_broken_out_owner_is_not_dropped_on_that_exit() {
        assert!(releases(
            "fn k(n: usize) -> Vec<u8> { let v = vec![0u8; n]; if n > 2 { return v; } v }"
        )
        .is_empty());
        let got = releases("fn k(n: usize) { let w = loop { let v = vec![0u8; n]; break v; }; }");
        assert_eq!(got, vec![ReleaseKind::ScopeEnd], "only `w` is dropped");
    }

    #[test]
    fn null_test_marks_the_pointer_null_on_its_branch() {
        let (ir, _) = analyze_text(
            "fn k(l: std::alloc::Layout) { let p = unsafe { std::alloc::alloc(l) }; \
             if !p.is_null() { unsafe { std::alloc::dealloc(p, l) } } }",
        );
        let f = ir.functions().next().expect("a function");
        let body = &f.bodies[0];
        let null_block = body
            .blocks
            .iter()
            .position(|b| {
                b.stmts
                    .iter()
                    .any(|s| matches!(s.op, Op::AssumeNull { .. }))
            })
            .expect("an assume-null");
        let dealloc_block = body
            .blocks
            .iter()
            .position(|b| b.stmts.iter().any(|s| matches!(s.op, Op::Release { .. })))
            .expect("a dealloc");
        assert_ne!(
            null_block, dealloc_block,
            "`!is_null()` assumes null on the else branch"
        );
    }
}

#[cfg(test)]
mod depth_tests {
    use crate::program::analyze_text;

    #[test]
    fn nesting_past_the_limit_is_truncated_on_a_parser_sized_stack() {
        // syn needs about 3 MiB to parse this nesting in a debug build; the bounded
        // lowering must fit in what parsing needed, so a thread that can parse a file
        // can also lower it.
        let worker = std::thread::Builder::new()
            .stack_size(4 * 1024 * 1024)
            .spawn(|| {
                let depth = super::MAX_DEPTH as usize + 8;
                let body = format!("{}a[0] = 1.0;{}", "{ ".repeat(depth), " }".repeat(depth));
                let text = format!("fn f(a: &mut [f32]) {{ {body} }}");
                let (ir, _) = analyze_text(&text);
                let truncated = ir.functions().next().map(|f| f.truncated);
                truncated
            })
            .expect("thread starts");
        assert_eq!(worker.join().expect("no stack overflow"), Some(true));
    }
}

#[cfg(test)]
mod inplace_tests {
    use crate::ir::{FnIr, Op};
    use crate::program::analyze_text;

    fn lower_one(text: &str) -> FnIr {
        let (ir, _) = analyze_text(text);
        ir.functions().last().cloned().expect("one function")
    }

    fn ops(f: &FnIr) -> Vec<&Op> {
        f.stmts().map(|(_, _, s)| &s.op).collect()
    }

    #[test]
    fn out_of_place_ops_record_their_producer_and_in_place_form() {
        let f = lower_one(
            "fn k(x: ndarray::Array2<f32>, t: tch::Tensor) { let y = x.mapv(|v| v * 2.0); \
             let z = &x - 1.0; let s = t.sigmoid(); }",
        );
        let producers: Vec<&crate::ir::Producer> =
            f.roots.iter().filter_map(|r| r.producer.as_ref()).collect();
        let mapv = producers.iter().find(|p| p.op == "mapv").expect("mapv");
        assert_eq!(mapv.inplace_form.as_deref(), Some("mapv_into_any"));
        let sub = producers
            .iter()
            .find(|p| p.op == "-")
            .expect("the subtraction");
        assert!(sub.lhs_ref.is_some());
        assert_eq!(sub.inputs.len(), 2, "both operands, the scalar too");
        let sigmoid = producers
            .iter()
            .find(|p| p.op == "sigmoid")
            .expect("sigmoid");
        assert!(sigmoid.saves_output);
    }

    #[test]
    fn no_grad_closure_body_runs_without_autograd() {
        let f = lower_one(
            "fn k(mut w: tch::Tensor, g: tch::Tensor) { tch::no_grad(|| { w.sub_(&g); }); }",
        );
        assert!(!f.bodies[0].no_grad);
        assert!(f.bodies.iter().skip(1).any(|b| b.no_grad));
    }

    #[test]
    fn loop_body_entry_and_header_are_inside_the_loop() {
        let f = lower_one("fn k(n: usize) { for _ in 0..n { let t = vec![0u8; 16]; } }");
        let alloc_block = f.bodies[0]
            .blocks
            .iter()
            .find(|b| b.stmts.iter().any(|s| matches!(s.op, Op::Alloc { .. })))
            .expect("the allocation");
        assert_eq!(alloc_block.loop_depth, 1);
    }

    #[test]
    fn compound_assignment_through_a_reference_is_in_place_from_the_source() {
        let f = lower_one("fn k(a: &mut ndarray::Array2<f32>) { *a += &a.t(); }");
        let srcs = ops(&f).into_iter().find_map(|op| match op {
            Op::InPlace { srcs, method, .. } if method == "+=" => Some(srcs.len()),
            _ => None,
        });
        assert_eq!(srcs, Some(1));
    }

    #[test]
    fn local_method_ending_in_underscore_is_the_crates_own() {
        let (ir, _) = analyze_text(
            "struct T; impl T { fn flatten_(&self) -> usize { 0 } fn all(&self) -> usize { self.flatten_() } }",
        );
        let all = ir.functions().find(|f| f.name == "all").expect("all");
        assert!(!ops(all).iter().any(|op| matches!(op, Op::InPlace { .. })));
    }
}

#[cfg(test)]
mod escape_tests {
    use crate::ir::{EscapeKind, FnIr, Op, ValueKind};
    use crate::program::analyze_text;

    fn lower_one(text: &str) -> FnIr {
        let (ir, _) = analyze_text(text);
        ir.functions().last().cloned().expect("one function")
    }

    fn ops(f: &FnIr) -> Vec<&Op> {
        f.stmts().map(|(_, _, s)| &s.op).collect()
    }

    /// The roots of `f` that some `Escape` of kind `Returned` reaches.
    fn returned_roots(f: &FnIr) -> Vec<crate::ir::RootId> {
        let pt = crate::dataflow::PointsTo::compute(f);
        let mut roots: Vec<_> = ops(f)
            .into_iter()
            .filter_map(|op| match op {
                Op::Escape {
                    value,
                    how: EscapeKind::Returned,
                } => Some(pt.roots(*value).to_vec()),
                _ => None,
            })
            .flatten()
            .collect();
        roots.sort_unstable();
        roots.dedup();
        roots
    }

    #[test]
    fn allocations_returned_inside_tuples_arrays_and_structs_escape() {
        let header = "use std::alloc::{alloc, Layout};
             struct Pair { a: *mut u8, b: *mut u8 }";
        for body in [
            "fn k(l: Layout) -> (*mut u8, usize) { let p = unsafe { alloc(l) }; (p, 4) }",
            "fn k(l: Layout) -> [*mut u8; 2] { unsafe { [alloc(l), alloc(l)] } }",
            "fn k(l: Layout) -> Pair { let a = unsafe { alloc(l) }; let b = unsafe { alloc(l) }; Pair { a, b } }",
            "fn k(l: Layout) -> (usize, *mut u8) { if l.size() == 0 { return (0, std::ptr::null_mut()); } (1, unsafe { alloc(l) }) }",
        ] {
            let f = lower_one(&format!("{header}\n{body}"));
            assert_eq!(returned_roots(&f).len(), f.roots.len(), "{body}");
            assert!(!f.roots.is_empty(), "{body}");
        }
    }

    #[test]
    fn drop_in_place_of_a_borrowed_slice_drops_elements_not_the_buffer() {
        let (ir, _) =
            analyze_text("unsafe fn clear(data: &mut [String]) { std::ptr::drop_in_place(data); }");
        let f = ir.functions().next().expect("one function");
        assert!(!ops(f).iter().any(|op| matches!(op, Op::Release { .. })));
        assert!(ops(f).iter().any(|op| matches!(op, Op::Write { .. })));
        let s = ir.summary(f.id).expect("summarized");
        assert!(s.frees.is_empty() && s.writes.contains(&0), "{s:?}");
    }

    #[test]
    fn bitwise_copy_of_an_owner_owns_the_same_memory() {
        for copy in ["std::mem::transmute_copy(&v)", "std::ptr::read(&v)"] {
            let f = lower_one(&format!(
                "fn k(n: usize) -> Vec<f32> {{ let v = vec![0.0f32; n]; let c = unsafe {{ {copy} }}; std::mem::forget(v); c }}"
            ));
            let c = f
                .values
                .iter()
                .find(|v| v.name.as_deref() == Some("c"))
                .expect("the copy");
            assert!(matches!(c.kind, ValueKind::Root(_)), "{copy}: {:?}", c.kind);
            assert_eq!(returned_roots(&f).len(), 1, "{copy}");
        }
    }

    #[test]
    fn method_taking_self_by_value_and_returning_self_hands_the_owner_back() {
        let f = lower_one(
            "use std::alloc::{alloc, Layout};
             struct Buf { p: *mut u8 }
             impl Buf {
                 fn new(l: Layout) -> Buf { Buf { p: unsafe { alloc(l) } } }
                 fn filled(self, x: u8) -> Self { unsafe { *self.p = x }; self }
             }
             fn k(l: Layout) -> Buf { Buf::new(l).filled(0) }",
        );
        assert_eq!(returned_roots(&f).len(), 1);
    }

    #[test]
    fn method_taking_self_by_reference_does_not_hand_the_owner_back() {
        let f = lower_one(
            "use std::alloc::{alloc, Layout};
             struct Buf { p: *mut u8 }
             impl Buf {
                 fn new(l: Layout) -> Buf { Buf { p: unsafe { alloc(l) } } }
                 fn fresh(&self) -> Self { Buf { p: std::ptr::null_mut() } }
             }
             fn k(l: Layout) -> Buf { Buf::new(l).fresh() }",
        );
        assert!(returned_roots(&f).is_empty());
    }

    #[test]
    fn new_value_of_a_type_with_a_drop_impl_is_released_by_drop() {
        let src = |drop_impl: &str| {
            format!(
                "use std::alloc::{{alloc, dealloc, Layout}};
                 struct Buf {{ p: *mut u8, l: Layout }}
                 impl Buf {{ fn new(l: Layout) -> Self {{ Buf {{ p: unsafe {{ alloc(l) }}, l }} }} }}
                 {drop_impl}
                 fn k(l: Layout) -> usize {{ let b = Buf::new(l); b.l.size() }}"
            )
        };
        let with_drop = lower_one(&src(
            "impl Drop for Buf { fn drop(&mut self) { unsafe { dealloc(self.p, self.l) } } }",
        ));
        let without = lower_one(&src(""));
        let released = |f: &FnIr| f.roots.first().map(|r| r.released_by.clone());
        assert_eq!(released(&with_drop), Some(crate::ir::ReleasedBy::Drop));
        assert_eq!(released(&without), Some(crate::ir::ReleasedBy::Dealloc));
    }
}
