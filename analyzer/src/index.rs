//! The item index of one crate: every function and method with its signature and
//! annotations, the structs with their field types and `#[repr(align)]`, the modules
//! across files and the `use` paths of each module, so that the lowering can resolve a
//! call to a crate-local function or to a modelled library API.
//!
//! The index owns what it knows and borrows no syntax tree, so it can be shared by the
//! threads that lower a crate's functions. Each file is indexed on its own
//! ([`FileItems::collect`]), on the thread that parsed it, and the parts are joined in
//! the crate's file order ([`ItemIndex::from_files`]); the function bodies stay with
//! their trees as [`FnAst`]s, in the same order as [`ItemIndex::fns`].

use std::collections::HashMap;

use syn::spanned::Spanned;

use crate::ir::{Annotations, Assumption, TyClass};
use crate::models::foreign::{Foreign, ForeignFn, ForeignTy};
use crate::models::TypeSize;
use crate::source::{FileId, SourceError, Span};
use crate::syntax::int::parse_cmp_expr;
use crate::syntax::ty::classify_type;
use crate::syntax::{CrateSources, ParsedFile};

/// A function, an associated function or a method.
#[derive(Clone, Debug)]
pub struct FnItem {
    pub name: String,
    /// Module the item is in (`[]` for the crate root).
    pub module: Vec<String>,
    /// The `impl`'s self type name (`Pool` for `impl<T> Pool<T>`).
    pub self_ty: Option<String>,
    /// The trait of a trait impl, or of a provided trait method.
    pub trait_name: Option<String>,
    /// Names of the parameters in order (`self` first for methods; `_` for patterns
    /// that bind no single name).
    pub params: Vec<String>,
    pub has_receiver: bool,
    /// The receiver is `&self`: the method cannot change the value it is called on.
    pub shared_receiver: bool,
    /// The receiver is `&self` or `&mut self`: the method borrows the value.
    pub ref_receiver: bool,
    /// The parameter a by-value method hands back as its result (`fn filled(self) ->
    /// Self`), see `lower::expr`.
    pub hands_back: Option<usize>,
    /// The type named by the return type when it is returned by value.
    pub returns_owned: Option<String>,
    /// The return type is a raw pointer (`-> *mut f32`).
    pub returns_raw_ptr: bool,
    /// `fn get(&self) -> &mut T`: hands out unique access from a shared receiver (the
    /// shape clippy calls `mut_from_ref`).
    pub mut_from_shared: bool,
    /// The return type is a `&mut` reference.
    pub returns_mut_ref: bool,
    /// `fn new(target: &'a mut T) -> Self`: the value made holds the one `&mut`
    /// argument it is given (its index).
    pub holds_borrow: Option<usize>,
    /// For `Drop::drop`: what of `self` it hands to unsafe calls.
    pub drop_release: Option<SelfRelease>,
    /// For a method that returns values of its own type: where the fields of the
    /// values it builds come from (see [`crate::syntax::built_fields`]).
    pub built_fields: Vec<(String, crate::syntax::built_fields::FieldSource)>,
    /// A method of an `impl` whose `type Item` is a `&mut` reference: the items it
    /// hands out are unique borrows.
    pub yields_mut: bool,
    pub file: FileId,
    pub annotations: Annotations,
    pub span: Span,
}

/// What a `Drop::drop` hands to the calls of its `unsafe` blocks (`dealloc(self.ptr,
/// ..)`, `release(self)`): the memory its value releases when dropped.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SelfRelease {
    /// Fields of `self` passed (or reached through) as an argument or receiver.
    pub fields: Vec<String>,
    /// `self` itself is passed.
    pub whole: bool,
}

impl SelfRelease {
    fn of(block: &syn::Block) -> SelfRelease {
        let mut v = SelfReleaseVisitor {
            unsafe_depth: 0,
            found: SelfRelease::default(),
        };
        syn::visit::Visit::visit_block(&mut v, block);
        v.found
    }
}

struct SelfReleaseVisitor {
    unsafe_depth: u32,
    found: SelfRelease,
}

impl SelfReleaseVisitor {
    fn note(&mut self, e: &syn::Expr) {
        if self.unsafe_depth == 0 {
            return;
        }
        match self_part(e) {
            Some(None) => self.found.whole = true,
            Some(Some(f)) if !self.found.fields.contains(&f) => self.found.fields.push(f),
            _ => {}
        }
    }
}

/// `Some(None)` for `self` (also `&mut *self`, `self as *mut _`), `Some(Some(f))` for a
/// value reached from field `f` of `self` (`self.f`, `self.f.as_ptr()`, `self.f as *mut u8`).
fn self_part(e: &syn::Expr) -> Option<Option<String>> {
    match e {
        syn::Expr::Path(p) if p.path.is_ident("self") => Some(None),
        syn::Expr::Field(f) => match self_part(&f.base)? {
            None => Some(Some(match &f.member {
                syn::Member::Named(n) => n.to_string(),
                syn::Member::Unnamed(i) => i.index.to_string(),
            })),
            inner => Some(inner),
        },
        syn::Expr::MethodCall(m) if m.args.is_empty() => match self_part(&m.receiver)? {
            // `self.clone()`, `self.len()` are not `self`'s memory.
            None => None,
            inner => Some(inner),
        },
        syn::Expr::Cast(c) => self_part(&c.expr),
        syn::Expr::Paren(p) => self_part(&p.expr),
        syn::Expr::Reference(r) => self_part(&r.expr),
        syn::Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => self_part(&u.expr),
        _ => None,
    }
}

impl<'ast> syn::visit::Visit<'ast> for SelfReleaseVisitor {
    fn visit_expr_unsafe(&mut self, u: &'ast syn::ExprUnsafe) {
        self.unsafe_depth += 1;
        syn::visit::visit_expr_unsafe(self, u);
        self.unsafe_depth -= 1;
    }

    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        for a in &c.args {
            self.note(a);
        }
        syn::visit::visit_expr_call(self, c);
    }

    fn visit_expr_method_call(&mut self, m: &'ast syn::ExprMethodCall) {
        for a in m.args.iter().chain(std::iter::once(&*m.receiver)) {
            self.note(a);
        }
        syn::visit::visit_expr_method_call(self, m);
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

/// The syntax of one function, kept by the thread that owns its file's tree.
#[derive(Clone, Copy, Debug)]
pub struct FnAst<'a> {
    pub sig: &'a syn::Signature,
    pub block: &'a syn::Block,
}

impl FnItem {
    /// `module::Type::name`, crate-relative.
    pub fn path(&self) -> String {
        let mut parts: Vec<&str> = self.module.iter().map(String::as_str).collect();
        if let Some(ty) = &self.self_ty {
            parts.push(ty);
        }
        parts.push(&self.name);
        parts.join("::")
    }
}

/// What the size estimates need of a written type, without its syntax tree.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TypeShape {
    Reference {
        slice: bool,
    },
    Pointer,
    Tuple(Vec<TypeShape>),
    Array {
        len: Option<u64>,
        elem: Box<TypeShape>,
    },
    /// A path type: its last segment and first generic type argument.
    Named {
        name: String,
        arg: Option<Box<TypeShape>>,
    },
    Other,
}

impl TypeShape {
    pub fn of(ty: &syn::Type) -> TypeShape {
        Self::of_depth(ty, 0)
    }

    fn of_depth(ty: &syn::Type, depth: u32) -> TypeShape {
        if depth > 16 {
            return TypeShape::Other;
        }
        match ty {
            syn::Type::Reference(r) => TypeShape::Reference {
                slice: matches!(*r.elem, syn::Type::Slice(_)),
            },
            syn::Type::Ptr(_) | syn::Type::BareFn(_) => TypeShape::Pointer,
            syn::Type::Paren(p) => Self::of_depth(&p.elem, depth + 1),
            syn::Type::Tuple(t) => TypeShape::Tuple(
                t.elems
                    .iter()
                    .map(|e| Self::of_depth(e, depth + 1))
                    .collect(),
            ),
            syn::Type::Array(a) => TypeShape::Array {
                len: match &a.len {
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Int(i),
                        ..
                    }) => i.base10_parse::<u64>().ok(),
                    _ => None,
                },
                elem: Box::new(Self::of_depth(&a.elem, depth + 1)),
            },
            syn::Type::Path(p) => match p.path.segments.last() {
                Some(last) => TypeShape::Named {
                    name: last.ident.to_string(),
                    arg: match &last.arguments {
                        syn::PathArguments::AngleBracketed(a) => {
                            a.args.iter().find_map(|g| match g {
                                syn::GenericArgument::Type(t) => {
                                    Some(Box::new(Self::of_depth(t, depth + 1)))
                                }
                                _ => None,
                            })
                        }
                        _ => None,
                    },
                },
                None => TypeShape::Other,
            },
            _ => TypeShape::Other,
        }
    }
}

/// One field of a struct.
#[derive(Clone, Debug)]
pub struct FieldInfo {
    /// Field name, or its position for tuple structs.
    pub name: String,
    pub ty: TyClass,
    /// Last path segment of the field type (`CachePadded`, `AtomicUsize`, `f32`);
    /// `[u64]` for arrays.
    pub ty_name: String,
    /// The type of the elements a pointer or buffer field points to (`Node` for
    /// `NonNull<Node>`, `f32` for `Vec<f32>`).
    pub elem_name: Option<String>,
    /// Estimated size in bytes, when the type's layout is known.
    pub bytes: Option<u64>,
    /// Estimated size of one element of a buffer field (`RwLock<Map>` of
    /// `Box<[RwLock<Map>]>`), when known.
    pub elem_bytes: Option<u64>,
    /// The type has a lifetime argument (`Vec<'bump, u8>`): its storage is borrowed
    /// from something that outlives it (an arena, a pool).
    pub borrows_storage: bool,
    /// A function pointer (`fn(..)`, `Option<unsafe extern "C" fn(..)>`).
    pub fn_pointer: bool,
    /// Byte offset in the struct, from the compiler's layout (the syntax front end
    /// leaves it to [`StructItem::field_places`], which assumes declaration order).
    pub offset: Option<u64>,
}

/// A struct of the crate.
#[derive(Clone, Debug)]
pub struct StructItem {
    pub name: String,
    pub module: Vec<String>,
    pub fields: Vec<FieldInfo>,
    /// `N` of `#[repr(align(N))]`.
    pub repr_align: Option<u64>,
    /// Where `#[derive(Clone)]` names `Clone`: a clone copies every field, raw pointers
    /// included.
    pub derives_clone: Option<Span>,
    /// Its `Drop` releases what a raw pointer field points to
    /// ([`ItemIndex::raw_owner`]), set once the whole crate is indexed.
    pub raw_owner: bool,
    /// Where a `Clone` written by hand builds the clone with a raw pointer field copied
    /// from the value cloned (compiler front end).
    pub clone_copies_pointer: Option<Span>,
    /// Methods that release what a pointer field points to and leave the field as it
    /// was, which the type's `Drop` releases again (compiler front end).
    pub released_not_reset: Vec<ReleasedNotReset>,
    /// Estimated size in bytes: the fields' sizes added, rounded up to the alignment.
    /// Field reordering by `repr(Rust)` changes only padding, which this ignores.
    pub size: Option<u64>,
    pub span: Span,
}

/// A method that releases a field its type's `Drop` releases again: see
/// [`StructItem::released_not_reset`].
#[derive(Clone, Debug)]
pub struct ReleasedNotReset {
    pub method: String,
    pub field: String,
    /// The method takes `self`: the value is dropped at its end (at `dropped_at`).
    pub by_value: bool,
    /// The field is an atomic pointer (read with `load`, reset with `swap`).
    pub atomic: bool,
    /// The method's release, and the `Drop`'s.
    pub release: Span,
    pub drop_release: Span,
    pub dropped_at: Option<Span>,
}

impl StructItem {
    /// Each field with its byte offset and size, in declaration order: where the
    /// compiler laid it out when that is known, else where the size estimate assumes
    /// (fields one after the other), up to the first field of unknown size.
    pub fn field_places(&self) -> impl Iterator<Item = (&FieldInfo, i64, i64)> {
        let mut offset = Some(0i64);
        self.fields.iter().map_while(move |f| {
            let bytes = i64::try_from(f.bytes?).ok()?;
            let at = match f.offset {
                Some(at) => i64::try_from(at).ok()?,
                None => offset?,
            };
            offset = at.checked_add(bytes);
            Some((f, at, bytes))
        })
    }
}

/// A module and where its items live.
#[derive(Clone, Debug)]
pub struct ModuleItem {
    pub path: Vec<String>,
    pub file: FileId,
    /// `mod foo;` declarations whose body is another file.
    pub out_of_line_children: Vec<String>,
}

/// A `static` of the crate or of a function body: the lengths of its nested arrays,
/// outermost first, and the type of their elements (`[[AtomicBool; 16]; 16]` has dims
/// `[16, 16]` and elements `AtomicBool`).
#[derive(Clone, Debug)]
pub struct StaticItem {
    pub dims: Vec<ArrayLen>,
    pub elem: TypeShape,
}

/// The length of an array type: a literal, a named constant, or something else.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ArrayLen {
    Known(u64),
    Named(String),
    Unknown,
}

impl StaticItem {
    pub fn of(ty: &syn::Type) -> StaticItem {
        let mut dims = Vec::new();
        let mut cur = ty;
        while let syn::Type::Array(a) = cur {
            dims.push(match &a.len {
                syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(i),
                    ..
                }) => i
                    .base10_parse::<u64>()
                    .map_or(ArrayLen::Unknown, ArrayLen::Known),
                syn::Expr::Path(p) => p
                    .path
                    .get_ident()
                    .map_or(ArrayLen::Unknown, |i| ArrayLen::Named(i.to_string())),
                _ => ArrayLen::Unknown,
            });
            cur = &a.elem;
        }
        StaticItem {
            dims,
            elem: TypeShape::of(cur),
        }
    }
}

/// The value of `const NAME: T = <integer literal>;`, when it is one.
pub fn const_int(c: &syn::ItemConst) -> Option<u64> {
    match &*c.expr {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Int(i),
            ..
        }) => i.base10_parse::<u64>().ok(),
        _ => None,
    }
}

/// The items of one file, indexed on the thread that parsed it.
#[derive(Debug, Default)]
pub struct FileItems {
    fns: Vec<FnItem>,
    structs: Vec<StructItem>,
    struct_types: Vec<Vec<TypeShape>>,
    struct_elem_types: Vec<Vec<Option<TypeShape>>>,
    modules: Vec<ModuleItem>,
    uses: HashMap<String, HashMap<String, Vec<String>>>,
    globs: HashMap<String, Vec<Vec<String>>>,
    extern_fns: Vec<ForeignFn>,
    /// `type Name = *mut T;`: names that are pointers.
    pointer_aliases: Vec<String>,
    /// `macro_rules!` definitions: name and the text of the rules.
    macros: Vec<(String, String)>,
    statics: Vec<(String, StaticItem)>,
    consts: Vec<(String, u64)>,
    errors: Vec<SourceError>,
}

impl FileItems {
    /// Indexes one parsed file; the bodies come back in the order of its functions.
    pub fn collect(parsed: &ParsedFile) -> (FileItems, Vec<FnAst<'_>>) {
        let mut items = FileItems::default();
        let mut asts = Vec::new();
        let mut out_of_line = Vec::new();
        items.collect_items(
            &parsed.ast.items,
            &parsed.module_path,
            parsed.file,
            &mut out_of_line,
            &mut asts,
        );
        items.modules.push(ModuleItem {
            path: parsed.module_path.clone(),
            file: parsed.file,
            out_of_line_children: out_of_line,
        });
        (items, asts)
    }

    fn collect_items<'a>(
        &mut self,
        items: &'a [syn::Item],
        module: &[String],
        file: FileId,
        out_of_line: &mut Vec<String>,
        asts: &mut Vec<FnAst<'a>>,
    ) {
        for item in items {
            match item {
                syn::Item::Fn(f) => {
                    self.push_fn(&f.sig, &f.block, &f.attrs, module, None, None, file, asts);
                }
                syn::Item::Macro(m) if m.mac.path.is_ident("macro_rules") => {
                    if let Some(name) = &m.ident {
                        self.macros
                            .push((name.to_string(), m.mac.tokens.to_string()));
                    }
                }
                syn::Item::ForeignMod(m) => {
                    for it in &m.items {
                        if let syn::ForeignItem::Fn(f) = it {
                            self.push_foreign_fn(f, file);
                        }
                    }
                }
                syn::Item::Impl(imp) => {
                    let self_ty = type_name(&imp.self_ty);
                    let trait_name = imp
                        .trait_
                        .as_ref()
                        .and_then(|(_, path, _)| path.segments.last())
                        .map(|s| s.ident.to_string());
                    let yields_mut = imp.items.iter().any(|it| {
                        matches!(it, syn::ImplItem::Type(t)
                            if t.ident == "Item"
                                && matches!(&t.ty, syn::Type::Reference(r) if r.mutability.is_some()))
                    });
                    for it in &imp.items {
                        if let syn::ImplItem::Fn(m) = it {
                            self.push_fn(
                                &m.sig,
                                &m.block,
                                &m.attrs,
                                module,
                                self_ty.clone(),
                                trait_name.clone(),
                                file,
                                asts,
                            );
                            if let Some(f) = self.fns.last_mut() {
                                f.yields_mut = yields_mut;
                            }
                        }
                    }
                }
                syn::Item::Trait(tr) => {
                    for it in &tr.items {
                        if let syn::TraitItem::Fn(m) = it {
                            if let Some(block) = &m.default {
                                self.push_fn(
                                    &m.sig,
                                    block,
                                    &m.attrs,
                                    module,
                                    Some(tr.ident.to_string()),
                                    Some(tr.ident.to_string()),
                                    file,
                                    asts,
                                );
                            }
                        }
                    }
                }
                syn::Item::Struct(s) => self.push_struct(s, module, file),
                syn::Item::Static(s) => {
                    self.statics
                        .push((s.ident.to_string(), StaticItem::of(&s.ty)));
                }
                syn::Item::Const(c) => {
                    if let Some(v) = const_int(c) {
                        self.consts.push((c.ident.to_string(), v));
                    }
                }
                syn::Item::Type(t) if matches!(*t.ty, syn::Type::Ptr(_)) => {
                    self.pointer_aliases.push(t.ident.to_string());
                }
                syn::Item::Mod(m) => {
                    let mut child = module.to_vec();
                    child.push(m.ident.to_string());
                    match &m.content {
                        Some((_, items)) => {
                            let mut nested = Vec::new();
                            self.collect_items(items, &child, file, &mut nested, asts);
                            self.modules.push(ModuleItem {
                                path: child,
                                file,
                                out_of_line_children: nested,
                            });
                        }
                        None => out_of_line.push(m.ident.to_string()),
                    }
                }
                syn::Item::Use(u) => {
                    let mut prefix = Vec::new();
                    self.collect_use(&u.tree, module, &mut prefix);
                }
                _ => {}
            }
        }
    }

    fn collect_use(&mut self, tree: &syn::UseTree, module: &[String], prefix: &mut Vec<String>) {
        let key = module.join("::");
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.collect_use(&p.tree, module, prefix);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                let name = n.ident.to_string();
                let mut full = prefix.clone();
                if name == "self" {
                    if let Some(last) = prefix.last().cloned() {
                        self.uses.entry(key).or_default().insert(last, full);
                    }
                    return;
                }
                full.push(name.clone());
                self.uses.entry(key).or_default().insert(name, full);
            }
            syn::UseTree::Rename(r) => {
                let mut full = prefix.clone();
                full.push(r.ident.to_string());
                self.uses
                    .entry(key)
                    .or_default()
                    .insert(r.rename.to_string(), full);
            }
            syn::UseTree::Glob(_) => self.globs.entry(key).or_default().push(prefix.clone()),
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.collect_use(t, module, prefix);
                }
            }
        }
    }

    fn push_foreign_fn(&mut self, f: &syn::ForeignItemFn, file: FileId) {
        let names = param_names(&f.sig);
        let annotations = parse_annotations(&f.attrs, &names, file, &mut self.errors);
        let params = f
            .sig
            .inputs
            .iter()
            .map(|arg| match arg {
                syn::FnArg::Typed(t) => ForeignTy::of(&t.ty),
                syn::FnArg::Receiver(_) => ForeignTy::Other,
            })
            .collect();
        let ret = match &f.sig.output {
            syn::ReturnType::Type(_, ty) => ForeignTy::of(ty),
            syn::ReturnType::Default => ForeignTy::Other,
        };
        self.extern_fns.push(ForeignFn {
            name: f.sig.ident.to_string(),
            params,
            ret,
            annotations,
        });
    }

    #[allow(clippy::too_many_arguments)]
    fn push_fn<'a>(
        &mut self,
        sig: &'a syn::Signature,
        block: &'a syn::Block,
        attrs: &[syn::Attribute],
        module: &[String],
        self_ty: Option<String>,
        trait_name: Option<String>,
        file: FileId,
        asts: &mut Vec<FnAst<'a>>,
    ) {
        let names = param_names(sig);
        let annotations = parse_annotations(attrs, &names, file, &mut self.errors);
        let hands_back = param_handed_back(sig, self_ty.as_deref());
        let returns_owned = match &sig.output {
            syn::ReturnType::Type(_, ret) => owned_type_name(ret, self_ty.as_deref()),
            syn::ReturnType::Default => None,
        };
        let shared_receiver = sig
            .receiver()
            .is_some_and(|r| r.reference.is_some() && r.mutability.is_none());
        let mut_from_shared = returns_mut_ref(sig) && sig.inputs.len() == 1 && shared_receiver;
        let holds_borrow = match &returns_owned {
            Some(ret) if self_ty.as_deref() == Some(ret.as_str()) => {
                let muts: Vec<usize> = sig
                    .inputs
                    .iter()
                    .enumerate()
                    .filter(|(_, a)| {
                        matches!(a, syn::FnArg::Typed(t)
                            if matches!(&*t.ty, syn::Type::Reference(r) if r.mutability.is_some()))
                    })
                    .map(|(i, _)| i)
                    .collect();
                match muts.as_slice() {
                    [one] if sig.receiver().is_none() => Some(*one),
                    _ => None,
                }
            }
            _ => None,
        };
        let returns_raw_ptr = matches!(&sig.output, syn::ReturnType::Type(_, ty) if matches!(&**ty, syn::Type::Ptr(_)));
        let drop_release = (trait_name.as_deref() == Some("Drop") && sig.ident == "drop")
            .then(|| SelfRelease::of(block));
        // What a method returning values of its own type (`split`) builds them from.
        let built_fields = match &self_ty {
            Some(ty) if sig.receiver().is_some() && returns_type_named(sig, ty) => {
                crate::syntax::built_fields::built_fields(block, ty)
            }
            _ => Vec::new(),
        };
        asts.push(FnAst { sig, block });
        self.fns.push(FnItem {
            built_fields,
            yields_mut: false,
            drop_release,
            returns_raw_ptr,
            mut_from_shared,
            returns_mut_ref: returns_mut_ref(sig),
            holds_borrow,
            name: sig.ident.to_string(),
            module: module.to_vec(),
            self_ty,
            trait_name,
            params: names,
            has_receiver: sig.receiver().is_some(),
            shared_receiver,
            ref_receiver: sig.receiver().is_some_and(|r| r.reference.is_some()),
            hands_back,
            returns_owned,
            file,
            annotations,
            span: Span::from_proc_macro(file, sig.ident.span()),
        });
    }

    fn push_struct(&mut self, s: &syn::ItemStruct, module: &[String], file: FileId) {
        let fields = s
            .fields
            .iter()
            .enumerate()
            .map(|(i, f)| FieldInfo {
                name: f
                    .ident
                    .as_ref()
                    .map_or_else(|| i.to_string(), |id| id.to_string()),
                ty: classify_type(&f.ty),
                ty_name: match &f.ty {
                    syn::Type::Array(a) => format!("[{}]", type_name(&a.elem).unwrap_or_default()),
                    other => type_name(other).unwrap_or_default(),
                },
                elem_name: crate::syntax::ty::element_type(&f.ty).and_then(type_name),
                borrows_storage: has_lifetime_arg(&f.ty),
                fn_pointer: is_fn_pointer(&f.ty),
                bytes: None,
                elem_bytes: None,
                offset: None,
            })
            .collect();
        self.struct_types
            .push(s.fields.iter().map(|f| TypeShape::of(&f.ty)).collect());
        self.struct_elem_types.push(
            s.fields
                .iter()
                .map(|f| crate::syntax::ty::element_type(&f.ty).map(TypeShape::of))
                .collect(),
        );
        self.structs.push(StructItem {
            name: s.ident.to_string(),
            module: module.to_vec(),
            fields,
            repr_align: repr_align(&s.attrs),
            derives_clone: derives(&s.attrs, "Clone", file),
            raw_owner: false,
            clone_copies_pointer: None,
            released_not_reset: Vec::new(),
            size: None,
            span: Span::from_proc_macro(file, s.ident.span()),
        });
    }

    /// How many functions the file defines.
    pub fn fn_count(&self) -> usize {
        self.fns.len()
    }
}

/// The index of one crate.
#[derive(Debug, Default)]
pub struct ItemIndex {
    pub fns: Vec<FnItem>,
    pub structs: Vec<StructItem>,
    pub modules: Vec<ModuleItem>,
    /// Per module path (joined with `::`): alias → full path of each `use`.
    uses: HashMap<String, HashMap<String, Vec<String>>>,
    /// Glob imports per module.
    globs: HashMap<String, Vec<Vec<String>>>,
    by_path: HashMap<String, Vec<usize>>,
    by_type_method: HashMap<String, Vec<usize>>,
    by_method: HashMap<String, Vec<usize>>,
    /// The written field types of each struct, for the size estimates.
    struct_types: Vec<Vec<TypeShape>>,
    /// The element types of buffer fields, for [`FieldInfo::elem_bytes`].
    struct_elem_types: Vec<Vec<Option<TypeShape>>>,
    /// Problems with annotations.
    pub errors: Vec<SourceError>,
    /// Names of the functions `extern` blocks of the crate declare: foreign code that
    /// reads and writes through the pointers it is given.
    pub extern_fns: std::collections::BTreeSet<String>,
    /// What the foreign functions that make and release handles do, by name.
    /// The crate's `macro_rules!` definitions by name ([`ItemIndex::macro_rules`]).
    macros: HashMap<String, Option<String>>,
    pub foreign: std::collections::BTreeMap<String, Foreign>,
    /// The crate's statics by name; `None` when two differ.
    statics: HashMap<String, Option<StaticItem>>,
    /// The crate's integer constants by name; `None` when two differ.
    consts: HashMap<String, Option<u64>>,
}

/// What a path or method call resolved to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Resolved {
    /// Index into [`ItemIndex::fns`].
    Local(usize),
    /// A path outside the crate, fully expanded through `use` aliases
    /// (`ndarray::Array2::zeros`).
    External(Vec<String>),
}

impl ItemIndex {
    /// Indexes every file of `krate` on this thread; the bodies come back in the order of
    /// [`ItemIndex::fns`].
    pub fn build(krate: &CrateSources) -> (ItemIndex, Vec<FnAst<'_>>) {
        let mut parts = Vec::new();
        let mut asts = Vec::new();
        for parsed in &krate.files {
            let (items, file_asts) = FileItems::collect(parsed);
            parts.push(items);
            asts.extend(file_asts);
        }
        (ItemIndex::from_files(parts), asts)
    }

    /// Joins the files' items, in the crate's file order.
    pub fn from_files(parts: Vec<FileItems>) -> ItemIndex {
        let mut index = ItemIndex::default();
        let mut foreign_fns = Vec::new();
        let mut pointer_aliases = Vec::new();
        for part in parts {
            index.fns.extend(part.fns);
            index.structs.extend(part.structs);
            index.struct_types.extend(part.struct_types);
            index.struct_elem_types.extend(part.struct_elem_types);
            index.modules.extend(part.modules);
            for (module, names) in part.uses {
                index.uses.entry(module).or_default().extend(names);
            }
            for (module, globs) in part.globs {
                index.globs.entry(module).or_default().extend(globs);
            }
            index.errors.extend(part.errors);
            for (name, rules) in part.macros {
                // Textual scoping is not followed. Two different definitions of one name
                // (under `#[cfg]`s this run cannot decide) leave it unexpanded.
                let entry = index
                    .macros
                    .entry(name)
                    .or_insert_with(|| Some(rules.clone()));
                if entry.as_deref() != Some(rules.as_str()) {
                    *entry = None;
                }
            }
            foreign_fns.extend(part.extern_fns);
            pointer_aliases.extend(part.pointer_aliases);
            for (name, item) in part.statics {
                // Statics of different modules with one name are not told apart.
                match index.statics.entry(name) {
                    std::collections::hash_map::Entry::Vacant(e) => {
                        e.insert(Some(item));
                    }
                    std::collections::hash_map::Entry::Occupied(mut e) => {
                        *e.get_mut() = None;
                    }
                }
            }
            for (name, v) in part.consts {
                let entry = index.consts.entry(name).or_insert(Some(v));
                if *entry != Some(v) {
                    *entry = None;
                }
            }
        }
        index.extern_fns = foreign_fns.iter().map(|f| f.name.clone()).collect();
        // Structs with a function-pointer field that releases: the allocators a C API
        // is handed (`OrtAllocator { alloc, free }`).
        let allocators: Vec<(String, String)> = index
            .structs
            .iter()
            .filter_map(|s| {
                let field = s
                    .fields
                    .iter()
                    .find(|f| f.fn_pointer && crate::models::foreign::names_a_release(&f.name))?;
                Some((s.name.clone(), field.name.clone()))
            })
            .collect();
        let struct_names: Vec<String> = index.structs.iter().map(|s| s.name.clone()).collect();
        index.foreign = crate::models::foreign::roles(
            &foreign_fns,
            &pointer_aliases,
            &allocators,
            &struct_names,
        );
        index.estimate_struct_sizes();
        for (i, f) in index.fns.iter().enumerate() {
            index.by_path.entry(f.path()).or_default().push(i);
            if let Some(ty) = &f.self_ty {
                index
                    .by_type_method
                    .entry(format!("{ty}::{}", f.name))
                    .or_default()
                    .push(i);
                index.by_method.entry(f.name.clone()).or_default().push(i);
            }
        }
        let owners: Vec<bool> = index
            .structs
            .iter()
            .map(|s| index.releases_raw_field(s))
            .collect();
        for (s, owner) in index.structs.iter_mut().zip(owners) {
            s.raw_owner = owner;
        }
        index
    }

    /// Fills in field and struct sizes, smallest structs first: a struct whose fields
    /// are all known gets a size, which may make an enclosing struct known next round.
    fn estimate_struct_sizes(&mut self) {
        for _ in 0..8 {
            let mut changed = false;
            for k in 0..self.structs.len() {
                if self.structs[k].size.is_some() {
                    continue;
                }
                let sizes: Vec<Option<u64>> = self.struct_types[k]
                    .iter()
                    .map(|t| self.shape_size(t, 0))
                    .collect();
                let elem_sizes: Vec<Option<u64>> = self
                    .struct_elem_types
                    .get(k)
                    .map(|ts| {
                        ts.iter()
                            .map(|t| t.as_ref().and_then(|t| self.shape_size(t, 0)))
                            .collect()
                    })
                    .unwrap_or_default();
                for (i, (f, b)) in self.structs[k].fields.iter_mut().zip(&sizes).enumerate() {
                    f.bytes = *b;
                    f.elem_bytes = elem_sizes.get(i).copied().flatten();
                }
                if let Some(total) = sizes.iter().copied().sum::<Option<u64>>() {
                    let align = self.structs[k].repr_align.unwrap_or(1).max(1);
                    self.structs[k].size = Some(total.div_ceil(align) * align);
                    changed = true;
                }
            }
            if !changed {
                break;
            }
        }
    }

    /// Estimated size of a written type in bytes (64-bit target).
    pub fn type_size(&self, ty: &syn::Type, depth: u32) -> Option<u64> {
        self.shape_size(&TypeShape::of(ty), depth)
    }

    fn shape_size(&self, ty: &TypeShape, depth: u32) -> Option<u64> {
        if depth > 16 {
            return None;
        }
        match ty {
            TypeShape::Reference { slice } => Some(if *slice { 16 } else { 8 }),
            TypeShape::Pointer => Some(8),
            TypeShape::Tuple(elems) => elems.iter().map(|e| self.shape_size(e, depth + 1)).sum(),
            TypeShape::Array { len, elem } => {
                self.shape_size(elem, depth + 1)?.checked_mul((*len)?)
            }
            TypeShape::Named { name, arg } => {
                let arg = arg.as_deref();
                match crate::models::type_size(name) {
                    Some(TypeSize::Bytes(b)) => Some(b),
                    Some(TypeSize::PaddedArg(line)) => {
                        Some(self.shape_size(arg?, depth + 1)?.div_ceil(line) * line)
                    }
                    Some(TypeSize::OfArg) => self.shape_size(arg?, depth + 1),
                    Some(TypeSize::HeaderArg(header)) => {
                        Some(header + self.shape_size(arg?, depth + 1)?.div_ceil(8) * 8)
                    }
                    None => self.struct_named(name).and_then(|s| s.size),
                }
            }
            TypeShape::Other => None,
        }
    }

    /// The size of a type named by its last segment alone (`AtomicUsize`, a crate
    /// struct), when known without its generic arguments.
    pub fn type_size_named(&self, name: &str) -> Option<u64> {
        self.shape_size(
            &TypeShape::Named {
                name: name.to_string(),
                arg: None,
            },
            0,
        )
    }

    pub fn fn_item(&self, idx: usize) -> Option<&FnItem> {
        self.fns.get(idx)
    }

    /// The rules of the crate's `macro_rules!` macro `name`, as text; `None` also when
    /// the crate defines it twice, differently.
    pub fn macro_rules(&self, name: &str) -> Option<&str> {
        self.macros.get(name)?.as_deref()
    }

    /// The crate's `static` named `name`, when one alone has that name.
    pub fn static_named(&self, name: &str) -> Option<&StaticItem> {
        self.statics.get(name)?.as_ref()
    }

    /// The value of the crate's integer constant `name`, when one alone has that name.
    pub fn const_value(&self, name: &str) -> Option<u64> {
        *self.consts.get(name)?
    }

    /// Bytes of a value of the type `ty` describes, when known.
    pub fn shape_bytes(&self, ty: &TypeShape) -> Option<u64> {
        self.shape_size(ty, 0)
    }

    pub fn struct_named(&self, name: &str) -> Option<&StructItem> {
        self.structs.iter().find(|s| s.name == name)
    }

    /// Whether `ty` is a crate struct that owns memory through a raw pointer field:
    /// its `Drop` hands that field, or the whole value, to an unsafe call. Two values
    /// holding the same pointer both release it.
    pub fn raw_owner(&self, ty: &str) -> bool {
        self.struct_named(ty).is_some_and(|s| s.raw_owner)
    }

    fn releases_raw_field(&self, s: &StructItem) -> bool {
        let ty = s.name.as_str();
        let raw: Vec<&str> = s
            .fields
            .iter()
            .filter(|f| f.ty == TyClass::RawPtr)
            .map(|f| f.name.as_str())
            .collect();
        !raw.is_empty()
            && self
                .methods_named(Some(ty), "drop")
                .into_iter()
                .filter_map(|m| self.fn_item(m))
                .filter(|m| m.self_ty.as_deref() == Some(ty))
                .filter_map(|m| m.drop_release.as_ref())
                .any(|d| d.whole || d.fields.iter().any(|f| raw.contains(&f.as_str())))
    }

    /// Expands the first segment of `path` through the `use` declarations of `module`
    /// and makes `crate::`/`self::`/`super::` paths crate-absolute.
    pub fn expand_path(&self, module: &[String], path: &[String]) -> Vec<String> {
        let Some(first) = path.first() else {
            return Vec::new();
        };
        match first.as_str() {
            "crate" => return path[1..].to_vec(),
            "self" => return module.iter().chain(&path[1..]).cloned().collect(),
            "super" => {
                let mut base = module.to_vec();
                let mut rest = path;
                while rest.first().is_some_and(|s| s == "super") {
                    base.pop();
                    rest = &rest[1..];
                }
                return base.into_iter().chain(rest.iter().cloned()).collect();
            }
            _ => {}
        }
        if let Some(full) = self.uses.get(&module.join("::")).and_then(|m| m.get(first)) {
            let expanded: Vec<String> = full.iter().chain(&path[1..]).cloned().collect();
            // A `use crate::a::b` import names a crate-local item.
            if expanded
                .first()
                .is_some_and(|s| s == "crate" || s == "self" || s == "super")
            {
                return self.expand_path(module, &expanded);
            }
            return expanded;
        }
        path.to_vec()
    }

    /// Resolves a path written in `module`; `self_ty` resolves `Self::f`.
    pub fn resolve_path(
        &self,
        module: &[String],
        self_ty: Option<&str>,
        path: &[String],
    ) -> Resolved {
        let mut path = path.to_vec();
        if path.first().is_some_and(|s| s == "Self") {
            if let Some(ty) = self_ty {
                path[0] = ty.to_string();
            }
        }
        let expanded = self.expand_path(module, &path);
        // Relative to the current module first, then crate-absolute.
        let relative: Vec<String> = module.iter().chain(&expanded).cloned().collect();
        for candidate in [&relative, &expanded] {
            if let Some(&idx) = self
                .by_path
                .get(&candidate.join("::"))
                .and_then(|v| v.first())
            {
                return Resolved::Local(idx);
            }
        }
        if expanded.len() >= 2 {
            let key = expanded[expanded.len() - 2..].join("::");
            if let Some(&idx) = self.by_type_method.get(&key).and_then(|v| v.first()) {
                return Resolved::Local(idx);
            }
        }
        if expanded.len() == 1 {
            for glob in self.globs.get(&module.join("::")).into_iter().flatten() {
                let full: Vec<String> = glob.iter().chain(&expanded).cloned().collect();
                let full = self.expand_path(module, &full);
                if let Some(&idx) = self.by_path.get(&full.join("::")).and_then(|v| v.first()) {
                    return Resolved::Local(idx);
                }
            }
        }
        Resolved::External(expanded)
    }

    /// Crate-local methods named `name`, optionally on the type `ty`.
    pub fn methods_named(&self, ty: Option<&str>, name: &str) -> Vec<usize> {
        if let Some(ty) = ty {
            if let Some(found) = self.by_type_method.get(&format!("{ty}::{name}")) {
                return found.clone();
            }
        }
        self.by_method.get(name).cloned().unwrap_or_default()
    }
}

/// The last path segment of a type, looking through references and pointers.
pub fn type_name(ty: &syn::Type) -> Option<String> {
    match ty {
        syn::Type::Path(p) => p.path.segments.last().map(|s| s.ident.to_string()),
        syn::Type::Reference(r) => type_name(&r.elem),
        syn::Type::Ptr(p) => type_name(&p.elem),
        syn::Type::Paren(p) => type_name(&p.elem),
        syn::Type::Group(g) => type_name(&g.elem),
        _ => None,
    }
}

fn param_names(sig: &syn::Signature) -> Vec<String> {
    sig.inputs
        .iter()
        .map(|arg| match arg {
            syn::FnArg::Receiver(_) => "self".to_string(),
            syn::FnArg::Typed(t) => pat_name(&t.pat).unwrap_or_else(|| "_".to_string()),
        })
        .collect()
}

fn pat_name(pat: &syn::Pat) -> Option<String> {
    match pat {
        syn::Pat::Ident(i) => Some(i.ident.to_string()),
        syn::Pat::Type(t) => pat_name(&t.pat),
        syn::Pat::Reference(r) => pat_name(&r.pat),
        _ => None,
    }
}

/// `fn(..)`, or an `Option` of one.
fn is_fn_pointer(ty: &syn::Type) -> bool {
    match ty {
        syn::Type::BareFn(_) => true,
        syn::Type::Paren(p) => is_fn_pointer(&p.elem),
        syn::Type::Path(p) => p.path.segments.last().is_some_and(|s| {
            crate::models::is_optional_type(&s.ident.to_string())
                && matches!(&s.arguments, syn::PathArguments::AngleBracketed(a)
                    if a.args.iter().any(|g| matches!(g, syn::GenericArgument::Type(t) if is_fn_pointer(t))))
        }),
        _ => false,
    }
}

/// Where `#[derive(..)]` lists `name`.
fn derives(attrs: &[syn::Attribute], name: &str, file: FileId) -> Option<Span> {
    let mut found = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("derive")) {
        let _ = attr.parse_nested_meta(|meta| {
            if let Some(seg) = meta.path.segments.last().filter(|s| s.ident == name) {
                found = found.or(Some(Span::from_proc_macro(file, seg.ident.span())));
            }
            Ok(())
        });
    }
    found
}

fn repr_align(attrs: &[syn::Attribute]) -> Option<u64> {
    let mut align = None;
    for attr in attrs.iter().filter(|a| a.path().is_ident("repr")) {
        let _ = attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("align") {
                let content;
                syn::parenthesized!(content in meta.input);
                let lit: syn::LitInt = content.parse()?;
                align = lit.base10_parse::<u64>().ok();
            } else if meta.input.peek(syn::token::Paren) {
                let content;
                syn::parenthesized!(content in meta.input);
                let _: proc_macro2::TokenStream = content.parse()?;
            }
            Ok(())
        });
    }
    align
}

/// The annotation named by an attribute path: `tensor_lint::kernel` → `kernel`.
fn annotation_name(path: &syn::Path) -> Option<String> {
    let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    match segs.as_slice() {
        [krate, name] if krate == "tensor_lint" => Some(name.clone()),
        _ => None,
    }
}

/// Reads the `tensor-lint` annotations of one function; problems go to `errors`.
pub(crate) fn parse_annotations(
    attrs: &[syn::Attribute],
    params: &[String],
    file: FileId,
    errors: &mut Vec<SourceError>,
) -> Annotations {
    let mut ann = Annotations::default();
    for attr in attrs {
        let Some(name) = annotation_name(attr.path()) else {
            continue;
        };
        let span = Span::from_proc_macro(file, attr.span());
        let has_args = matches!(attr.meta, syn::Meta::List(_));
        match name.as_str() {
            "kernel" => {
                ann.kernel = true;
                if has_args {
                    parse_kernel_args(attr, file, span, &mut ann.assumptions, errors);
                }
            }
            "alloc" => ann.alloc = true,
            // `free(self)`, `inplace(a, b)`: one or more names, `self` included, as the
            // macros accept them.
            "free" | "inplace" => match attr.parse_args_with(|input: syn::parse::ParseStream<'_>| {
                syn::punctuated::Punctuated::<syn::Ident, syn::Token![,]>::parse_separated_nonempty_with(
                    input,
                    syn::ext::IdentExt::parse_any,
                )
            }) {
                Ok(ids) => {
                    for id in ids {
                        match param_index(params, &id.to_string()) {
                            Some(i) if name == "free" => ann.frees.push(i),
                            Some(i) => ann.inplace.push(i),
                            None => errors.push(no_such_param(file, &id, params)),
                        }
                    }
                }
                Err(e) => errors.push(malformed(
                    file,
                    span,
                    &name,
                    &e,
                    "expected a parameter name",
                )),
            },
            "view" => {
                let mut target = None;
                let parsed = attr.parse_nested_meta(|meta| {
                    if meta.path.is_ident("of") {
                        let id: syn::Ident = syn::ext::IdentExt::parse_any(meta.value()?)?;
                        target = Some(id);
                        Ok(())
                    } else {
                        Err(meta.error("expected `of = ARG`"))
                    }
                });
                match (parsed, target) {
                    (Ok(()), Some(id)) => match param_index(params, &id.to_string()) {
                        Some(i) => ann.view_of = Some(i),
                        None => errors.push(no_such_param(file, &id, params)),
                    },
                    (Err(e), _) => {
                        errors.push(malformed(file, span, &name, &e, "expected `of = ARG`"))
                    }
                    (Ok(()), None) => errors.push(SourceError {
                        span,
                        message: "`tensor_lint::view` needs `of = ARG`".into(),
                        label: "expected `view(of = ARG)`".into(),
                        unsure: false,
                    }),
                }
            }
            // `allow` is read by `crate::suppress`, with the allow comments.
            _ => {}
        }
    }
    ann
}

fn parse_kernel_args(
    attr: &syn::Attribute,
    file: FileId,
    span: Span,
    out: &mut Vec<Assumption>,
    errors: &mut Vec<SourceError>,
) {
    let result = attr.parse_nested_meta(|meta| {
        if !meta.path.is_ident("assume") {
            return Err(meta.error("expected `assume(...)`"));
        }
        let content;
        syn::parenthesized!(content in meta.input);
        let conds = syn::punctuated::Punctuated::<syn::Expr, syn::Token![,]>::parse_terminated(&content)?;
        for cond in &conds {
            match parse_cmp_expr(cond) {
                Some(a) => out.push(a),
                None => {
                    return Err(syn::Error::new(
                        cond.span(),
                        "not a comparison of integer expressions (`==`, `!=`, `<`, `<=`, `>`, `>=`)",
                    ));
                }
            }
        }
        Ok(())
    });
    if let Err(e) = result {
        let at = Span::from_proc_macro(file, e.span());
        let at = if at.lo == at.hi { span } else { at };
        errors.push(SourceError {
            span: at,
            message: format!("malformed `tensor_lint::kernel` annotation: {e}"),
            label: "expected `assume(EXPR CMP EXPR, ...)` over integer sizes".into(),
            unsure: false,
        });
    }
}

fn param_index(params: &[String], name: &str) -> Option<usize> {
    params.iter().position(|p| p == name)
}

fn no_such_param(file: FileId, id: &syn::Ident, params: &[String]) -> SourceError {
    let listed: Vec<String> = params
        .iter()
        .filter(|p| *p != "_")
        .map(|p| format!("`{p}`"))
        .collect();
    SourceError {
        span: Span::from_proc_macro(file, id.span()),
        message: format!("annotation names `{id}`, which is not a parameter of this function"),
        label: if listed.is_empty() {
            "this function has no named parameters".into()
        } else {
            format!("expected one of {}", listed.join(", "))
        },
        unsure: false,
    }
}

fn malformed(file: FileId, span: Span, name: &str, e: &syn::Error, label: &str) -> SourceError {
    let at = Span::from_proc_macro(file, e.span());
    SourceError {
        span: if at.lo == at.hi { span } else { at },
        message: format!("malformed `tensor_lint::{name}` annotation: {e}"),
        label: label.into(),
        unsure: false,
    }
}

/// Whether a path type has a lifetime among its generic arguments.
fn has_lifetime_arg(ty: &syn::Type) -> bool {
    let syn::Type::Path(p) = ty else {
        return false;
    };
    p.path.segments.iter().any(|seg| match &seg.arguments {
        syn::PathArguments::AngleBracketed(a) => a
            .args
            .iter()
            .any(|g| matches!(g, syn::GenericArgument::Lifetime(_))),
        _ => false,
    })
}

/// Whether a signature returns `&mut T`.
/// Whether `sig`'s return type names type `ty` or `Self` (`-> (Self, Option<Self>)`).
fn returns_type_named(sig: &syn::Signature, ty: &str) -> bool {
    struct Named<'t> {
        ty: &'t str,
        found: bool,
    }
    impl<'ast> syn::visit::Visit<'ast> for Named<'_> {
        fn visit_path_segment(&mut self, s: &'ast syn::PathSegment) {
            if s.ident == "Self" || s.ident == self.ty {
                self.found = true;
            }
            syn::visit::visit_path_segment(self, s);
        }
    }
    let syn::ReturnType::Type(_, ret) = &sig.output else {
        return false;
    };
    let mut n = Named { ty, found: false };
    syn::visit::Visit::visit_type(&mut n, ret);
    n.found
}

fn returns_mut_ref(sig: &syn::Signature) -> bool {
    matches!(&sig.output, syn::ReturnType::Type(_, ty)
        if matches!(&**ty, syn::Type::Reference(r) if r.mutability.is_some()))
}

/// The parameter (the receiver first) that `sig` takes by value and whose type it
/// returns: a builder-style method (`fn filled(mut self, x: T) -> Self`) gives back the
/// owner it was handed.
pub(crate) fn param_handed_back(sig: &syn::Signature, self_ty: Option<&str>) -> Option<usize> {
    let syn::ReturnType::Type(_, ret) = &sig.output else {
        return None;
    };
    let ret = owned_type_name(ret, self_ty)?;
    sig.inputs.iter().position(|input| match input {
        syn::FnArg::Receiver(r) => {
            r.reference.is_none() && owned_type_name(&r.ty, self_ty).as_ref() == Some(&ret)
        }
        syn::FnArg::Typed(t) => owned_type_name(&t.ty, self_ty).as_ref() == Some(&ret),
    })
}

/// The name of an owned path type, with `Self` spelled as the `impl`'s type; `None` for
/// references, pointers and anything that is not a plain path.
pub(crate) fn owned_type_name(ty: &syn::Type, self_ty: Option<&str>) -> Option<String> {
    match ty {
        syn::Type::Paren(p) => owned_type_name(&p.elem, self_ty),
        syn::Type::Group(g) => owned_type_name(&g.elem, self_ty),
        syn::Type::Path(p) if p.qself.is_none() => {
            let last = p.path.segments.last()?.ident.to_string();
            if last == "Self" {
                self_ty.map(str::to_string)
            } else {
                Some(last)
            }
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::ParsedFile;

    fn krate(files: &[(&[&str], &str)]) -> CrateSources {
        CrateSources {
            name: "t".into(),
            files: files
                .iter()
                .enumerate()
                .map(|(i, (module, text))| ParsedFile {
                    file: FileId(i as u32),
                    module_path: module.iter().map(|s| s.to_string()).collect(),
                    ast: syn::parse_file(text).expect("test source parses"),
                })
                .collect(),
        }
    }

    #[test]
    fn a_macro_defined_twice_differently_is_not_expanded() {
        let k = krate(&[
            (
                &[],
                "macro_rules! once { ($e:expr) => { $e }; }
                 #[cfg(feature = \"a\")] macro_rules! two { ($e:expr) => { $e }; }
                 #[cfg(not(feature = \"a\"))] macro_rules! two { ($e:expr) => { () }; }",
            ),
            (&["m"], "macro_rules! once { ($e:expr) => { $e }; }"),
        ]);
        let (idx, _) = ItemIndex::build(&k);
        assert!(idx.macro_rules("once").is_some());
        assert!(idx.macro_rules("two").is_none());
        assert!(idx.macro_rules("three").is_none());
    }

    #[test]
    fn annotations_take_self_and_several_parameters_as_the_macros_do() {
        let k = krate(&[(
            &[],
            "struct Pool; impl Pool {
                #[tensor_lint::free(self)] fn close(self) {}
                #[tensor_lint::view(of = self)] fn rows(&self) -> &[f32] { &[] }
             }
             #[tensor_lint::inplace(normals, curvature)] fn fill(normals: &mut [f32], curvature: &mut [f32]) {}",
        )]);
        let (idx, _) = ItemIndex::build(&k);
        assert!(idx.errors.is_empty(), "{:?}", idx.errors);
        let by_name = |n: &str| {
            &idx.fns
                .iter()
                .find(|f| f.name == n)
                .expect("indexed")
                .annotations
        };
        assert_eq!(by_name("close").frees, [0]);
        assert_eq!(by_name("rows").view_of, Some(0));
        assert_eq!(by_name("fill").inplace, [0, 1]);
    }

    #[test]
    fn resolves_calls_through_use_aliases_across_files() {
        let k = krate(&[
            (&[], "mod kern; use crate::kern::scale as sc; fn main() {}"),
            (
                &["kern"],
                "pub fn scale() {} pub struct P(*mut f32); impl P { fn get(&self) {} }",
            ),
        ]);
        let (idx, _) = ItemIndex::build(&k);
        let Resolved::Local(i) = idx.resolve_path(&[], None, &["sc".into()]) else {
            panic!("alias did not resolve");
        };
        assert_eq!(idx.fns[i].path(), "kern::scale");
        assert_eq!(idx.methods_named(None, "get").len(), 1);
        assert_eq!(
            idx.modules[0].out_of_line_children,
            vec!["kern".to_string()]
        );
    }

    #[test]
    fn external_paths_expand_through_use() {
        let k = krate(&[(&[], "use ndarray::Array2 as A; fn f() {}")]);
        let (idx, _) = ItemIndex::build(&k);
        assert_eq!(
            idx.resolve_path(&[], None, &["A".into(), "zeros".into()]),
            Resolved::External(vec!["ndarray".into(), "Array2".into(), "zeros".into()])
        );
    }

    #[test]
    fn struct_fields_and_repr_align_are_recorded() {
        let k = krate(&[(
            &[],
            "#[repr(C, align(64))] struct Slot { n: u64, p: *mut f32 }",
        )]);
        let (idx, _) = ItemIndex::build(&k);
        let s = idx.struct_named("Slot").expect("indexed");
        assert_eq!(s.repr_align, Some(64));
        assert_eq!(s.fields[1].ty, TyClass::RawPtr);
        assert_eq!(s.size, Some(64));
    }

    #[test]
    fn struct_sizes_add_fields_and_pad_cache_padded() {
        let k = krate(&[(
            &[],
            "struct Counts { hits: [u64; 8], inner: Inner } struct Inner(u32, u32);              struct Padded { c: CachePadded<AtomicUsize> }",
        )]);
        let (idx, _) = ItemIndex::build(&k);
        assert_eq!(idx.struct_named("Counts").and_then(|s| s.size), Some(72));
        assert_eq!(idx.struct_named("Padded").and_then(|s| s.size), Some(128));
    }

    #[test]
    fn annotation_naming_no_parameter_is_an_error() {
        let k = krate(&[(&[], "#[tensor_lint::free(buf)] fn release(b: *mut u8) {}")]);
        let (idx, _) = ItemIndex::build(&k);
        assert_eq!(idx.errors.len(), 1);
        assert!(idx.errors[0].message.contains("`buf`"), "{:?}", idx.errors);
    }

    #[test]
    fn annotations_map_arguments_to_parameter_indices() {
        let k = krate(&[(
            &[],
            "#[tensor_lint::view(of = a)] #[tensor_lint::inplace(b)] fn f(&self, a: &[f32], b: &mut [f32]) {}",
        )]);
        let (idx, _) = ItemIndex::build(&k);
        let ann = &idx.fns[0].annotations;
        assert_eq!(ann.view_of, Some(1));
        assert_eq!(ann.inplace, vec![2]);
        assert!(idx.errors.is_empty());
    }

    #[test]
    fn malformed_kernel_assumption_is_an_error_with_a_span() {
        let text = "#[tensor_lint::kernel(assume(n + 1))] fn k(n: usize) {}";
        let k = krate(&[(&[], text)]);
        let (idx, _) = ItemIndex::build(&k);
        assert_eq!(idx.errors.len(), 1, "{:?}", idx.errors);
        assert_eq!(&text[idx.errors[0].span.range()], "n + 1");
    }
}
