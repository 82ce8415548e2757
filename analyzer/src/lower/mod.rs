//! Lowering: one function's syntax to its [`FnIr`].
//!
//! The lowering walks statements and expressions once, building the control-flow graph
//! as it goes (`if`, `match`, loops with labelled `break`/`continue`, `return`, `?`),
//! tracking which bindings hold tensor memory from constructors, parameter types,
//! models and callee summaries, and emitting one op per memory effect. Recursion is
//! bounded: past [`MAX_DEPTH`] nested expressions the rest becomes an unknown value and
//! the function is marked truncated, so deeply nested input cannot overflow the stack.

mod call;
mod control;
mod effects;
mod expr;
pub use crate::ir::geometry;
mod items;
mod macros;
mod method;
mod owners;
mod parallel;
mod place;
mod raw_ptr;
pub mod slice_macro;
mod statics;
mod tokens;

use std::collections::HashMap;

use crate::index::{FnAst, FnItem, ItemIndex};
use crate::ir::{
    Block, BlockId, Body, BodyId, BodyKind, FnId, FnIr, Op, ReleasedBy, ReturnKind, Root,
    RootOrigin, Stmt, Task, Terminator, TyClass, Value, ValueId, ValueKind,
};
use crate::models::Models;
use crate::oracle::{Expr, RootId, View};
use crate::source::{FileId, Span};
use crate::summary::FnSummary;
use crate::syntax::ty;

/// Deepest expression nesting lowered; deeper parts are unknown.
pub const MAX_DEPTH: u32 = 128;

/// Most statements lowered in one function; a generated monster beyond it is truncated.
const MAX_STMTS: usize = 200_000;

/// What the lowering of one function may consult.
pub struct LowerCtx<'x> {
    pub index: &'x ItemIndex,
    pub models: &'x Models,
    /// What is known of the features and test flag, to skip statements compiled out.
    pub cfg: &'x crate::syntax::cfg::CfgSet,
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
pub(crate) struct LoopCtx {
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
    /// Fields named so far (`x.f`), by base value: a field a function already reached
    /// may have been taken out before its owner is forgotten.
    mentioned_fields: std::collections::HashSet<(ValueId, String)>,
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
    /// The type a value is declared or constructed with (`pool: &ThreadPool`,
    /// `let pool = ThreadPool::new(4)`), by its name: which library type's method a
    /// method call is.
    pub(crate) declared: HashMap<ValueId, String>,
    /// The memory a parameter of unknown type hands out pointers to, per parameter.
    pub(crate) param_memory: HashMap<ValueId, RootId>,
    /// Integer comparisons, for [`FnIr::compared`].
    pub(crate) compared: Vec<(Expr, Expr)>,
    /// For [`FnIr::storage_tests`].
    pub(crate) storage_tests: Vec<(ValueId, ValueId)>,
    /// Functions declared inside the body (in `extern` blocks or as nested items).
    body_items: std::collections::HashSet<String>,
    /// Values copied out of a raw owner (`let Owned(p, _) = o`, `o.ptr`), with the
    /// owner, for [`FnIr::owner_copies`].
    pub(crate) owner_parts: HashMap<ValueId, ValueId>,
    /// Parameters that borrow a raw owner (`arr: &FfiArray`).
    pub(crate) borrowed_owners: std::collections::HashSet<ValueId>,
    pub(crate) owner_copies: Vec<crate::ir::OwnerCopy>,
    /// How many of the crate's macro expansions are being lowered, nested.
    pub(crate) expansions: u32,
    /// Values that are one element of a collection (`p` of `for p in ptrs`) or derived
    /// from one: what releasing them releases is the element's own block.
    pub(crate) elements: std::collections::HashSet<ValueId>,
    /// The block each released element holds, read once per element value.
    element_blocks: HashMap<ValueId, ValueId>,
    /// For a whole view of another value (`let c = self.columns()` and the iterators
    /// over `c`), the value it views first: a length this analysis does not know is the
    /// same symbol for all of them.
    whole_of: HashMap<ValueId, ValueId>,
    /// Collections an element of which was released, and how.
    released_elements: HashMap<crate::ir::RootId, crate::ir::ReleaseKind>,
    /// Iterators whose items are handles the caller must release (`xs.iter().map(to_raw)`
    /// of an allocating `to_raw`), with how they are released.
    pub(crate) owed_items: HashMap<ValueId, ReleasedBy>,
    /// The value the next closure lowered takes as its parameter: the item of the
    /// adapter it is passed to (see [`items`]).
    pub(crate) pending_item: Option<ValueId>,
    /// Lists of pointers into memory (`xs.iter().map(|s| s.as_ptr())`), and whether
    /// they point into the elements' own memory rather than the buffer.
    pub(crate) pointer_lists: HashMap<ValueId, bool>,
    /// Values declared with an owning buffer type (`Option<Vec<CString>>`) that the
    /// lowering only knows as a view, with the type of the buffer's elements.
    pub(crate) owned_by_type: HashMap<ValueId, Option<String>>,
    /// `static`s declared in the function's body, by name.
    pub(crate) local_statics: HashMap<String, crate::index::StaticItem>,
    /// The root of each `static` table the function reaches, by name.
    pub(crate) static_roots: HashMap<String, RootId>,
    /// For [`FnIr::run_time_indices`].
    pub(crate) run_time_indices: Vec<crate::ir::Iteration>,
    /// For [`FnIr::run_values`].
    pub(crate) run_values: Vec<(BodyId, String)>,
    /// For [`FnIr::element_values`].
    pub(crate) element_values: Vec<(String, crate::oracle::View)>,
    /// For [`FnIr::loop_starts`].
    pub(crate) loop_starts: Vec<(String, Expr)>,
    /// What a `bool` value says of integers when it is `true` (`i < n`, `a == b && c`).
    pub(crate) conditions: HashMap<ValueId, Vec<crate::ir::Assumption>>,
    /// The conditions of the `if`s being lowered, innermost last.
    pub(crate) guard_stack: Vec<crate::ir::Assumption>,
    /// For [`FnIr::guards`].
    pub(crate) guards: Vec<(Span, Vec<crate::ir::Assumption>)>,
    /// For [`FnIr::loop_carried`].
    pub(crate) loop_carried: Vec<String>,
    /// Values a crate function returned as an object of one of the crate's structs,
    /// with that struct's name.
    pub(crate) constructed: HashMap<ValueId, String>,
    /// Fields of a parameter that are themselves crate structs (`self.result`), with
    /// that struct's name and the parameter's memory origin.
    pub(crate) struct_fields: HashMap<ValueId, (String, RootOrigin)>,
    /// While the body of a producer's `fold_with` is lowered: what its pieces share.
    pub(crate) piece: Option<parallel::PieceCtx>,
    /// Values that are `self` of a producer piece or a field of it, by field path.
    pub(crate) piece_paths: HashMap<ValueId, Vec<String>>,
}

/// Lowers function `idx` of the index, whose syntax is `ast`. Must run on the thread
/// that parsed the function's file: spans are read from that thread's source positions.
pub fn lower_fn(ctx: &LowerCtx, idx: usize, ast: FnAst<'_>) -> Option<FnIr> {
    let item = ctx.index.fn_item(idx)?;
    let mut l = Lowerer::new(ctx, item, ast.sig);
    l.body_items = body_item_names(ast.block);
    l.lower_signature();
    let producer_fold = item
        .trait_name
        .as_deref()
        .is_some_and(|t| crate::models::is_producer_fold(t, &item.name));
    let result = if producer_fold && item.has_receiver {
        l.producer_pieces(ast.block)
    } else {
        l.block_expr(ast.block)
    };
    if l.is_live() {
        l.emit_return_escape(
            result,
            Span::from_proc_macro(l.file, ast.block.brace_token.span.close()),
        );
        let span = Span::from_proc_macro(l.file, ast.block.brace_token.span.close());
        // Parameters passed by value are dropped when the function returns.
        l.drop_scopes_on_exit(0, Some(result), span);
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
            mentioned_fields: std::collections::HashSet::new(),
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
            compared: Vec::new(),
            storage_tests: Vec::new(),
            param_memory: HashMap::new(),
            declared: HashMap::new(),
            body_items: std::collections::HashSet::new(),
            owner_parts: HashMap::new(),
            borrowed_owners: std::collections::HashSet::new(),
            owner_copies: Vec::new(),
            expansions: 0,
            elements: std::collections::HashSet::new(),
            element_blocks: HashMap::new(),
            whole_of: HashMap::new(),
            released_elements: HashMap::new(),
            owed_items: HashMap::new(),
            pending_item: None,
            pointer_lists: HashMap::new(),
            owned_by_type: HashMap::new(),
            local_statics: HashMap::new(),
            static_roots: HashMap::new(),
            run_time_indices: Vec::new(),
            run_values: Vec::new(),
            element_values: Vec::new(),
            loop_starts: Vec::new(),
            conditions: HashMap::new(),
            guard_stack: Vec::new(),
            guards: Vec::new(),
            loop_carried: Vec::new(),
            constructed: HashMap::new(),
            struct_fields: HashMap::new(),
            piece: None,
            piece_paths: HashMap::new(),
        }
    }

    fn finish(self, id: FnId) -> FnIr {
        let returns_condition = self.returns_condition();
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
            compared: self.compared,
            storage_tests: self.storage_tests,
            owner_copies: self.owner_copies,
            unowned_builds: Vec::new(),
            run_time_indices: self.run_time_indices,
            run_values: self.run_values,
            element_values: self.element_values,
            loop_starts: self.loop_starts,
            guards: self.guards,
            loop_carried: self.loop_carried,
            returns_condition,
        }
    }

    /// What the function's result says when it is `true`: the condition of its one
    /// returned value.
    fn returns_condition(&self) -> Vec<crate::ir::Assumption> {
        let returned = self.body_returns(BodyId(0));
        let [v] = returned.as_slice() else {
            return Vec::new();
        };
        self.conditions.get(v).cloned().unwrap_or_default()
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
            elem_is_pointer: false,
            field: None,
            shape,
            released_by,
            requires_grad: false,
            held_from_use: false,
            producer: None,
            allocated_by: None,
            uninit: false,
            span,
        });
        id
    }

    /// The number of elements of `v` when its shape is not known: one symbol for `v`
    /// and every whole view of the value it views, so that `c.len()` and the range of
    /// `c.par_iter()` are the same size.
    pub(crate) fn unknown_len(&self, v: ValueId) -> Expr {
        let mut base = v;
        let mut named = self.val(v).name.clone();
        while let Some(&b) = self.whole_of.get(&base) {
            base = b;
            named = self.val(b).name.clone().or(named);
        }
        match named {
            Some(name) => Expr::sym(&format!("{name}.len")),
            None => Expr::sym(&format!("len(%{})", base.0)),
        }
    }

    /// The root `v`'s memory is in, when it has one.
    pub(crate) fn root_of(&self, v: ValueId) -> Option<&Root> {
        self.roots.get(self.val(v).kind.root()?.0 as usize)
    }

    pub(crate) fn root_mut(&mut self, r: RootId) -> Option<&mut Root> {
        self.roots.get_mut(r.0 as usize)
    }

    pub(crate) fn emit(&mut self, op: Op, span: Span) {
        if self.stmt_count >= MAX_STMTS {
            self.truncated = true;
            return;
        }
        let writes = matches!(
            op,
            Op::Write { .. } | Op::Claim { .. } | Op::Atomic { .. } | Op::InPlace { .. }
        );
        if writes && !self.guard_stack.is_empty() {
            self.guards.push((span, self.guard_stack.clone()));
        }
        // Releasing an element of a collection (`for p in ptrs { free(p) }`) releases
        // the block that element holds or points to: another one for each element,
        // not the collection.
        let op = match op {
            Op::Release { value, how } if self.elements.contains(&value) => {
                if let Some(r) = self.val(value).kind.root() {
                    self.released_elements.insert(r, how.clone());
                }
                let held = match self.element_blocks.get(&value) {
                    Some(&held) => held,
                    None => {
                        let held = self.loaded_block(value, span);
                        // `m` of `for m in meshes` is the handle released.
                        self.val_mut(held).name = self.val(value).name.clone();
                        self.element_blocks.insert(value, held);
                        held
                    }
                };
                Op::Release { value: held, how }
            }
            op => op,
        };
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
        if let Some(t) = self.constructed.get(&v).cloned() {
            self.constructed.insert(c, t);
        }
        if let Some(it) = self.iters.get(&v).cloned() {
            self.iters.insert(c, it);
        }
        if let Some(t) = self.declared.get(&v).cloned() {
            self.declared.insert(c, t);
        }
        if let Some(t) = self.struct_fields.get(&v).cloned() {
            self.struct_fields.insert(c, t);
        }
        if let Some(p) = self.piece_paths.get(&v).cloned() {
            self.piece_paths.insert(c, p);
        }
        if self.elements.contains(&v) {
            self.elements.insert(c);
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
            // `None` is a variant, not a name.
            syn::Pat::Ident(i)
                if i.subpat.is_none()
                    && crate::models::variant_holds_value(&i.ident.to_string()).is_some() => {}
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
            syn::Pat::Reference(r) => {
                // `&cat` of an integer element: its value, another one each time.
                let name = pat_ident(&r.pat).unwrap_or_else(|| "value".into());
                let span = self.val(v).span;
                let v = self.element_number(v, &name, span).unwrap_or(v);
                self.bind_pat_at(&r.pat, v, depth + 1)
            }
            syn::Pat::Paren(p) => self.bind_pat_at(&p.pat, v, depth + 1),
            syn::Pat::Tuple(t) => self.bind_parts(t.elems.iter(), v, depth),
            syn::Pat::TupleStruct(t) if t.elems.len() == 1 && is_wrapper_variant(&t.path) => {
                // `Some(x)`, `Ok(x)`: the payload is the scrutinee's own memory. Bound
                // by value out of an owner, it takes the ownership over.
                let moves_out = matches!(self.val(v).kind, ValueKind::Root(_))
                    && matches!(t.elems.first(), Some(syn::Pat::Ident(i)) if i.by_ref.is_none());
                let inner = if moves_out {
                    v
                } else if self.val(v).kind.is_memory() {
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
                    self.note_owner_part(v, part);
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
            self.note_owner_part(v, part);
            self.bind_pat_at(p, part, depth + 1);
        }
    }

    /// The value of integer element `v` (one element of a buffer of integers), read
    /// here: a symbol named `name` standing for whatever the buffer holds there, a value
    /// computed at run time by the body reading it.
    pub(crate) fn element_number(&mut self, v: ValueId, name: &str, span: Span) -> Option<ValueId> {
        let view = self.val(v).view.clone().filter(|w| w.dims.is_empty())?;
        let root = self.val(v).kind.root()?;
        // Not a list of pointers to integers (`&[*mut u8]`, whose element type is
        // named `u8`).
        let integer = self.roots.get(root.0 as usize).is_some_and(|r| {
            !r.elem_is_pointer
                && r.elem_type
                    .as_deref()
                    .is_some_and(crate::models::is_integer_type)
        });
        if !integer {
            return None;
        }
        self.emit(
            Op::Read {
                value: v,
                region: Some(view.clone()),
            },
            span,
        );
        let out = self.run_time_value(name, span);
        if let Some(sym) = self
            .val(out)
            .int
            .as_ref()
            .and_then(|e| e.symbols().into_iter().next())
        {
            self.element_values.push((sym, view));
        }
        Some(out)
    }

    /// `offset += batch` on a `mut` integer inside a loop: a task spawned on each round
    /// of the loop sees another value of it (see [`FnIr::loop_carried`]).
    pub(crate) fn note_loop_carried(&mut self, v: ValueId) {
        let in_loop = self
            .loops
            .iter()
            .any(|l| l.body == self.cur_body && !l.is_block);
        let sym = self.val(v).int.as_ref().and_then(|e| {
            e.symbols()
                .into_iter()
                .next()
                .filter(|s| *e == Expr::sym(s))
        });
        if let (true, Some(sym)) = (in_loop, sym) {
            if !self.loop_carried.contains(&sym) {
                self.loop_carried.push(sym);
            }
        }
    }

    /// A fresh integer computed at run time by the body being lowered.
    pub(crate) fn run_time_value(&mut self, name: &str, span: Span) -> ValueId {
        let sym = self.fresh_symbol(name);
        self.run_values
            .push((BodyId(self.cur_body as u32), sym.clone()));
        self.scalar(Some(Expr::sym(&sym)), span)
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
        // `let names: Option<Vec<CString>> = match ..`: whatever the merge of the arms
        // left of it, a value of an owning buffer type owns that buffer.
        if class == TyClass::Vec && !is_reference(ty) && self.val(v).kind.is_memory() {
            let element = ty::element_type(ty).and_then(crate::index::type_name);
            self.owned_by_type.insert(v, element);
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
                    let v =
                        self.param_value("self".into(), RootOrigin::Param(i), &r.ty, span, true);
                    self.raw_owner_param(v, is_reference(&r.ty), i, span);
                    self.bind("self".into(), v);
                    self.bodies[0].params.push(v);
                }
                syn::FnArg::Typed(t) => {
                    let name = pat_ident(&t.pat).unwrap_or_else(|| format!("arg{i}"));
                    let span = self.span(t.colon_token.span);
                    let v = self.param_value(name, RootOrigin::Param(i), &t.ty, span, false);
                    self.raw_owner_param(v, is_reference(&t.ty), i, span);
                    self.bodies[0].params.push(v);
                    // The binding names the parameter's value itself.
                    self.val_mut(v).name = None;
                    self.tuple_param_parts(&t.pat, &t.ty, v, span);
                    self.bind_pat(&t.pat, v);
                }
            }
        }
    }

    /// `(m, n): (usize, usize)`: each named integer of a tuple parameter is a size of its
    /// own, known by its name as a plain integer parameter is.
    fn tuple_param_parts(&mut self, pat: &syn::Pat, ty: &syn::Type, v: ValueId, span: Span) {
        let (syn::Pat::Tuple(p), syn::Type::Tuple(t)) = (pat, ty) else {
            return;
        };
        if p.elems.len() != t.elems.len() {
            return;
        }
        let parts = p
            .elems
            .iter()
            .zip(&t.elems)
            .map(|(p, ty)| match (pat_ident(p), ty::classify_type(ty)) {
                (Some(name), TyClass::Scalar) => self.scalar(Some(Expr::sym(&name)), span),
                _ => self.unknown(span),
            })
            .collect();
        self.tuples.insert(v, parts);
    }

    /// A parameter's value: memory-typed parameters reach a root of their own, with a
    /// symbolic geometry (`a.len`, `a.dim0`, `a.stride0`) where the rank is known.
    fn param_value(
        &mut self,
        name: String,
        origin: RootOrigin,
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
        // `&self` of a struct whose fields all have a known place: its atomics are
        // bytes of one object, so callers see which field a method writes.
        let shared = if receiver {
            self.item
                .self_ty
                .clone()
                .filter(|t| is_reference(ty) && self.is_placed_struct(t))
        } else {
            self.shared_struct_type(ty)
        };
        if let Some(ty_name) = shared {
            if let Some(v) = self.struct_object(&name, &ty_name, origin.clone(), span) {
                self.val_mut(v).name = Some(name);
                return v;
            }
        }
        let v = self.new_value(Some(name.clone()), ValueKind::Scalar, class, span);
        if let Some(t) = ty::named_type(ty) {
            self.declared.insert(v, t);
        }
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
                let root =
                    self.new_root(name.clone(), origin, elem, None, ReleasedBy::NotOwned, span);
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
                let pointers = ty::elements_are_pointers(ty);
                if let Some(r) = self.root_mut(root) {
                    r.elem_type = elem_type;
                    r.elem_is_pointer = pointers;
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
        self.block_items(block);
        let mut last = None;
        let n = block.stmts.len();
        let mut i = 0;
        while i < n {
            let stmt = &block.stmts[i];
            match self.stmt_cfg(stmt) {
                // Compiled out.
                Some(Some(false)) => {
                    i += 1;
                    continue;
                }
                // Statements under conditions of the target (`#[cfg(unix)] {..}`
                // `#[cfg(windows)] {..}`): one of them runs, not each after the other.
                Some(None) => {
                    let run = block.stmts[i..]
                        .iter()
                        .take_while(|s| self.stmt_cfg(s) == Some(None))
                        .count();
                    if run > 1 {
                        let v = self.alternatives(&block.stmts[i..i + run]);
                        i += run;
                        if i == n && matches!(block.stmts[i - 1], syn::Stmt::Expr(_, None)) {
                            last = Some(v);
                        }
                        continue;
                    }
                }
                _ => {}
            }
            let v = self.stmt(stmt);
            if i + 1 == n {
                if let syn::Stmt::Expr(_, None) = stmt {
                    last = v;
                }
            }
            i += 1;
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
                // Memory made here, or a parameter passed by value (a raw owner's).
                ValueKind::Root(r) => self.roots.get(r.0 as usize).is_some_and(|r| {
                    matches!(r.origin, RootOrigin::Alloc | RootOrigin::Param(_))
                        && r.released_by == ReleasedBy::Drop
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

    /// `None` for a statement without `#[cfg]`; else whether the configuration keeps
    /// it (`Some(None)`: it depends on the target).
    fn stmt_cfg(&self, stmt: &syn::Stmt) -> Option<Option<bool>> {
        let attrs = match stmt {
            syn::Stmt::Local(l) => &l.attrs[..],
            syn::Stmt::Macro(m) => &m.attrs[..],
            syn::Stmt::Expr(e, _) => expr_attrs(e),
            syn::Stmt::Item(_) => return None,
        };
        let mut value = None;
        for attr in attrs.iter().filter(|a| a.path().is_ident("cfg")) {
            match self.ctx.cfg.attr_value(attr) {
                Some(false) => return Some(Some(false)),
                Some(true) => value = value.or(Some(Some(true))),
                None => value = Some(None),
            }
        }
        value
    }

    /// Statements of which exactly one runs: a branch with one arm each; the value is
    /// the last statement's where it is an expression.
    fn alternatives(&mut self, stmts: &[syn::Stmt]) -> ValueId {
        let span = self.span(proc_macro2::Span::call_site());
        let span = stmts
            .first()
            .map_or(span, |s| self.span(syn::spanned::Spanned::span(s)));
        let arms: Vec<BlockId> = stmts.iter().map(|_| self.new_block(span)).collect();
        let join = self.new_block(span);
        let result = self.unknown(span);
        self.terminate(
            Terminator::Branch {
                cond: None,
                targets: arms.clone(),
            },
            span,
        );
        for (stmt, arm) in stmts.iter().zip(arms) {
            self.switch_to(arm);
            let v = self.stmt(stmt);
            match v {
                Some(v) if matches!(stmt, syn::Stmt::Expr(_, None)) => {
                    self.join_arm(result, v, join, span)
                }
                _ => {
                    if self.is_live() {
                        self.terminate(Terminator::Goto(join), span);
                    }
                }
            }
        }
        self.switch_to(join);
        result
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
        let mut v = self.expr(&init.expr);
        self.drop_temporary_pointee(&init.expr, v);
        if let (syn::Pat::Type(typed), ValueKind::Unknown, None) =
            (&local.pat, &self.val(v).kind, &init.diverge)
        {
            // `let hits: Vec<AtomicU64> = (0..n).map(..).collect();`: the type says
            // what the opaque initializer built, a buffer of known elements.
            if let (Some(name), true) = (
                pat_ident(&typed.pat),
                self.is_owned_shared_buffer(&typed.ty),
            ) {
                let span = self.span(local.let_token.span);
                v = self.param_value(name, RootOrigin::Unknown, &typed.ty, span, false);
            }
        }
        let declared = match (&local.pat, &*init.expr) {
            (syn::Pat::Type(typed), _) => ty::named_type(&typed.ty),
            (_, syn::Expr::Call(c)) => match &*c.func {
                // `ThreadPool::new(4)`, `Pool::with_capacity(n)`: a value of that type.
                syn::Expr::Path(p) => p
                    .path
                    .segments
                    .iter()
                    .rev()
                    .nth(1)
                    .map(|owner| owner.ident.to_string())
                    .filter(|owner| owner.starts_with(|c: char| c.is_ascii_uppercase())),
                _ => None,
            },
            _ => None,
        };
        if let Some(t) = declared {
            self.declared.entry(v).or_insert(t);
        }
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
                if variant_presence(&local.pat) == Some(true) && self.val(v).kind.is_memory() {
                    self.emit(Op::AssumeNull { value: v }, span);
                }
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
        // A pattern cannot move fields out of a type with `Drop` (`let Owned(p, _) = o`
        // copies them): the owner stays whole.
        let copies_fields = matches!(local.pat, syn::Pat::TupleStruct(_) | syn::Pat::Struct(_))
            && self.raw_owner_type(v).is_some();
        let binds_name = !matches!(local.pat, syn::Pat::Wild(_)) && !copies_fields;
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

    /// `let p = vec![..].as_ptr();`: the vector is a temporary, dropped at the end of
    /// the statement, and `p` dangles from the next one on.
    fn drop_temporary_pointee(&mut self, init: &syn::Expr, p: ValueId) {
        let syn::Expr::MethodCall(m) = init else {
            return;
        };
        let temporary = matches!(
            &*m.receiver,
            syn::Expr::Call(_) | syn::Expr::MethodCall(_) | syn::Expr::Macro(_)
        );
        let method = m.method.to_string();
        let pointer_method = matches!(method.as_str(), "as_ptr" | "as_mut_ptr")
            || self.returns_pointer_into_receiver(&method);
        if !temporary || !pointer_method {
            return;
        }
        let (ValueKind::RawPtr(Some(root)) | ValueKind::View(root)) = self.val(p).kind else {
            return;
        };
        let fresh = self
            .roots
            .get(root.0 as usize)
            .is_some_and(|r| r.origin == RootOrigin::Alloc && r.released_by == ReleasedBy::Drop);
        // `ManuallyDrop::new(vec![..]).as_mut_ptr()` gives the vector up: not dropped.
        let given_up = self
            .bodies
            .get(self.cur_body)
            .and_then(|b| b.blocks.get(self.cur_block.0 as usize))
            .is_some_and(|blk| {
                blk.stmts.iter().any(|s| match &s.op {
                    Op::Escape { value, how } => {
                        matches!(how, crate::ir::EscapeKind::Leaked { .. })
                            && self.val(*value).kind.root() == Some(root)
                    }
                    _ => false,
                })
            });
        if fresh && !given_up {
            // What the method hands out reaches the temporary through a raw pointer.
            self.val_mut(p).kind = ValueKind::RawPtr(Some(root));
            let span = self.expr_span(&m.receiver);
            self.emit(
                Op::Release {
                    value: p,
                    how: crate::ir::ReleaseKind::ScopeEnd,
                },
                span,
            );
        }
    }

    /// Whether every crate method named `method` hands out a raw pointer: it returns
    /// one, or a crate struct with a raw pointer field (`fn to_raw_dims(&self) ->
    /// RawDims`). What it points into is the receiver's, as the summary says; a
    /// reference could not outlive a temporary receiver, a raw pointer can.
    fn returns_pointer_into_receiver(&self, method: &str) -> bool {
        let candidates = self.ctx.index.methods_named(None, method);
        !candidates.is_empty()
            && candidates.iter().all(|&i| {
                self.ctx.index.fn_item(i).is_some_and(|f| {
                    f.has_receiver
                        && (f.returns_raw_ptr
                            || f.returns_owned
                                .as_deref()
                                .and_then(|t| self.ctx.index.struct_named(t))
                                .is_some_and(|s| {
                                    s.fields.iter().any(|fi| fi.ty == TyClass::RawPtr)
                                }))
                })
            })
    }

    /// An owned buffer (`Vec<T>`, `Box<[T]>`, `[T; N]`) of atomics, locks, cells, padded
    /// slots or crate structs made of them: what threads share to count or publish
    /// into, worth a root even when the expression that built it is opaque.
    fn is_owned_shared_buffer(&self, ty: &syn::Type) -> bool {
        let owned = match ty {
            syn::Type::Array(_) => true,
            syn::Type::Reference(_) => false,
            other => ty::classify_type(other) == TyClass::Vec,
        };
        owned
            && ty::element_type(ty)
                .and_then(crate::index::type_name)
                .is_some_and(|e| {
                    crate::models::is_synchronised_type(&e)
                        || crate::models::is_padded_type(&e)
                        || self.is_placed_struct(&e)
                })
    }

    /// `self.as_mut_ptr()` on a parameter whose type says nothing of its memory (a
    /// trait's `self`, a generic `m: &mut M`): a pointer to the start of one buffer the
    /// parameter owns or borrows, the same buffer on every call.
    pub(crate) fn param_memory(&mut self, recv: ValueId, span: Span) -> Option<ValueId> {
        if self.val(recv).kind != ValueKind::Unknown {
            return None;
        }
        let index = self
            .bodies
            .first()?
            .params
            .iter()
            .position(|&p| p == recv)?;
        let name = self.val(recv).name.clone()?;
        let root = match self.param_memory.get(&recv) {
            Some(&r) => r,
            None => {
                let r = self.new_root(
                    format!("{name}'s buffer"),
                    RootOrigin::Param(index),
                    4,
                    None,
                    ReleasedBy::NotOwned,
                    span,
                );
                self.param_memory.insert(recv, r);
                r
            }
        };
        let whole = View::contiguous(root, 4, vec![Expr::sym(&format!("{name}.len"))]);
        let v = self.new_value(None, ValueKind::RawPtr(Some(root)), TyClass::RawPtr, span);
        self.val_mut(v).view = Some(geometry::pointer_to_start(&whole));
        Some(v)
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
    pub(crate) fn enclosing_iteration(&mut self, base: usize) -> Option<crate::ir::Iteration> {
        let counted = self.loops.iter().skip(base).rev().find_map(|l| {
            l.iteration
                .as_ref()
                .map(|(sym, lo, hi)| crate::ir::Iteration {
                    symbol: sym.clone(),
                    lo: lo.clone(),
                    hi: hi.clone(),
                    value: None,
                })
        });
        if counted.is_some() || self.loops.iter().skip(base).all(|l| l.is_block) {
            return counted;
        }
        // A `while` or `loop` spawning a task on each round: as many instances as
        // rounds, a number not known here.
        let round = self.fresh_symbol("round");
        let rounds = self.fresh_symbol("rounds");
        Some(crate::ir::Iteration {
            symbol: round,
            lo: Expr::int(0),
            hi: Expr::sym(&rounds),
            value: None,
        })
    }
}

/// The names of the functions declared inside a body: in `extern` blocks and as nested
/// `fn` items, at any depth.
fn body_item_names(block: &syn::Block) -> std::collections::HashSet<String> {
    use syn::visit::Visit;
    #[derive(Default)]
    struct Names(std::collections::HashSet<String>);
    impl<'ast> Visit<'ast> for Names {
        fn visit_foreign_item_fn(&mut self, f: &'ast syn::ForeignItemFn) {
            self.0.insert(f.sig.ident.to_string());
        }
        fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
            self.0.insert(f.sig.ident.to_string());
        }
    }
    let mut names = Names::default();
    for stmt in &block.stmts {
        if let syn::Stmt::Item(item) = stmt {
            names.visit_item(item);
        }
    }
    // Items inside nested blocks (`#[cfg] { extern "C" { .. } }`).
    struct Blocks<'n>(&'n mut Names);
    impl<'ast> Visit<'ast> for Blocks<'_> {
        fn visit_stmt(&mut self, s: &'ast syn::Stmt) {
            match s {
                syn::Stmt::Item(item) => self.0.visit_item(item),
                other => syn::visit::visit_stmt(self, other),
            }
        }
        fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    }
    syn::visit::visit_block(&mut Blocks(&mut names), block);
    names.0
}

/// The outer attributes of an expression written as a statement.
fn expr_attrs(e: &syn::Expr) -> &[syn::Attribute] {
    use syn::Expr as E;
    match e {
        E::Array(x) => &x.attrs,
        E::Assign(x) => &x.attrs,
        E::Async(x) => &x.attrs,
        E::Await(x) => &x.attrs,
        E::Binary(x) => &x.attrs,
        E::Block(x) => &x.attrs,
        E::Break(x) => &x.attrs,
        E::Call(x) => &x.attrs,
        E::Cast(x) => &x.attrs,
        E::Closure(x) => &x.attrs,
        E::Const(x) => &x.attrs,
        E::Continue(x) => &x.attrs,
        E::Field(x) => &x.attrs,
        E::ForLoop(x) => &x.attrs,
        E::Group(x) => &x.attrs,
        E::If(x) => &x.attrs,
        E::Index(x) => &x.attrs,
        E::Let(x) => &x.attrs,
        E::Lit(x) => &x.attrs,
        E::Loop(x) => &x.attrs,
        E::Macro(x) => &x.attrs,
        E::Match(x) => &x.attrs,
        E::MethodCall(x) => &x.attrs,
        E::Paren(x) => &x.attrs,
        E::Path(x) => &x.attrs,
        E::Range(x) => &x.attrs,
        E::Reference(x) => &x.attrs,
        E::Repeat(x) => &x.attrs,
        E::Return(x) => &x.attrs,
        E::Struct(x) => &x.attrs,
        E::Try(x) => &x.attrs,
        E::TryBlock(x) => &x.attrs,
        E::Tuple(x) => &x.attrs,
        E::Unary(x) => &x.attrs,
        E::Unsafe(x) => &x.attrs,
        E::While(x) => &x.attrs,
        E::Yield(x) => &x.attrs,
        _ => &[],
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

/// Whether a pattern matches only when the value is there (`Some(..)`, `Ok(..)`: true)
/// or only when it is not (`None`, `Err(..)`: false); `None` for any other pattern.
pub(crate) fn variant_presence(pat: &syn::Pat) -> Option<bool> {
    let name = match pat {
        syn::Pat::TupleStruct(t) => t.path.segments.last()?.ident.to_string(),
        syn::Pat::Ident(i) if i.subpat.is_none() => i.ident.to_string(),
        syn::Pat::Path(p) => p.path.segments.last()?.ident.to_string(),
        _ => return None,
    };
    crate::models::variant_holds_value(&name)
}

fn is_wrapper_variant(path: &syn::Path) -> bool {
    path.segments
        .last()
        .is_some_and(|s| crate::models::is_wrapper_variant(&s.ident.to_string()))
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

/// The geometry of a parameter of rank `ndim` (see [`View::of_parameter`]).
fn symbolic_view(root: RootId, elem: u32, name: &str, ndim: usize, class: TyClass) -> View {
    if ndim == 1 && matches!(class, TyClass::Slice | TyClass::Vec | TyClass::RawPtr) {
        return View::contiguous(root, elem, vec![Expr::sym(&format!("{name}.len"))]);
    }
    View::of_parameter(root, elem, name, ndim, class == TyClass::Array)
}

#[cfg(test)]
mod tests;
