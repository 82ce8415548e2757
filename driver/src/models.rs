//! The model table resolved for one crate: each row's path
//! ([`tensor_lint_analyzer::models::paths`]) looked up through the modules and
//! re-exports of the crates this compilation loaded, to the items it names.
//!
//! A call matches a row by the item the compiler resolved it to (the function, the
//! method of the impl that runs, or the trait method when no impl is known), never by
//! its name.

use std::cell::RefCell;

use rustc_data_structures::fx::FxHashMap;
use rustc_hir::def::DefKind;
use rustc_hir::def_id::{CrateNum, DefId, LOCAL_CRATE};
use rustc_middle::ty::fast_reject::SimplifiedType;
use rustc_middle::ty::TyCtxt;
use rustc_span::Symbol;

use tensor_lint_analyzer::ir::TyClass;
use tensor_lint_analyzer::models::paths;
use tensor_lint_analyzer::models::ApiModel;
use tensor_lint_analyzer::models::{Role, Sem};

/// Rows by the items they resolved to.
pub(crate) struct Models {
    by_item: FxHashMap<DefId, Model>,
    /// The rows of [`paths::ROLES`] by the items they resolved to.
    roles: FxHashMap<DefId, Role>,
    /// Rows of crates this compilation loaded that resolved to nothing: a library
    /// moved the item, and the row must follow it.
    pub unresolved: Vec<String>,
    /// The rows of the user's configuration, which come before every other row and
    /// before the crate's own functions.
    user: Vec<ApiModel>,
    /// Which of them a call of this crate matched.
    user_matched: RefCell<Vec<bool>>,
}

/// What a row says of the items it names, and how messages name them.
#[derive(Clone, Debug)]
pub(crate) struct Model {
    pub sem: Sem,
    /// The row's path as a user writes it without a `use`: `Box::into_raw` for the
    /// prelude's types, `std::mem::forget` otherwise.
    pub name: String,
}

impl Models {
    pub(crate) fn new(tcx: TyCtxt<'_>, user: Vec<ApiModel>) -> Models {
        let mut by_item = FxHashMap::default();
        let mut unresolved = Vec::new();
        for &(path, sem) in paths::PATHS {
            let name = paths::display_name(path);
            let items = resolve(tcx, path);
            if items.is_empty() && crate_loaded(tcx, path) {
                unresolved.push(path.to_string());
            }
            for item in items {
                by_item.entry(item).or_insert_with(|| Model {
                    sem,
                    name: name.clone(),
                });
            }
        }
        let mut roles = FxHashMap::default();
        for &(path, role) in paths::ROLES {
            let items = resolve(tcx, path);
            if items.is_empty() && crate_loaded(tcx, path) {
                unresolved.push(path.to_string());
            }
            for item in items {
                roles.entry(item).or_insert(role);
            }
        }
        let user_matched = RefCell::new(vec![false; user.len()]);
        Models {
            by_item,
            roles,
            unresolved,
            user,
            user_matched,
        }
    }

    /// The user's model of a call to `item`: the first row whose path ends with the
    /// item's path (`pool::Pool::checkout`, `Pool::checkout`, `checkout` for a
    /// method of `Pool` in module `pool`), or, in the older form, whose `method` is
    /// the name of a method.
    pub(crate) fn user_of(&self, tcx: TyCtxt<'_>, item: DefId) -> Option<Model> {
        if self.user.is_empty() {
            return None;
        }
        let segments = item_path(tcx, item);
        let is_method = tcx.def_kind(item) == DefKind::AssocFn;
        let at = self
            .user
            .iter()
            .position(|row| match (&row.path, &row.method) {
                (Some(path), _) => {
                    let wanted: Vec<&str> = path.split("::").map(str::trim).collect();
                    wanted.len() <= segments.len()
                        && segments[segments.len() - wanted.len()..]
                            .iter()
                            .zip(&wanted)
                            .all(|(have, want)| have == want)
                }
                (None, Some(method)) => is_method && segments.last() == Some(method),
                (None, None) => false,
            })?;
        if let Some(seen) = self.user_matched.borrow_mut().get_mut(at) {
            *seen = true;
        }
        let row = &self.user[at];
        let name = row
            .path
            .clone()
            .or_else(|| row.method.clone())
            .unwrap_or_default();
        Some(Model {
            sem: row.sem(),
            name,
        })
    }

    /// What releases the memory of the user's `alloc` rows, as messages name it: the
    /// one `free` row, or any of several.
    pub(crate) fn user_release_name(&self) -> String {
        let frees: Vec<&ApiModel> = self
            .user
            .iter()
            .filter(|row| row.effect == tensor_lint_analyzer::models::Effect::Free)
            .collect();
        match frees.as_slice() {
            [one] => one
                .path
                .clone()
                .or_else(|| one.method.clone())
                .unwrap_or_default(),
            _ => "a release the configuration models".into(),
        }
    }

    /// The rows of the user's configuration a call of this crate matched, by index.
    pub(crate) fn user_rows_matched(&self) -> Vec<usize> {
        let matched = self.user_matched.borrow();
        (0..matched.len()).filter(|&k| matched[k]).collect()
    }

    /// The role of `item` (a function, or the method of an impl, also through the
    /// trait method it implements), by the rows of [`paths::ROLES`].
    pub(crate) fn role(&self, tcx: TyCtxt<'_>, item: DefId) -> Option<Role> {
        self.roles
            .get(&item)
            .or_else(|| self.roles.get(&tcx.trait_item_of(item)?))
            .copied()
    }

    /// Whether `item` has role `role`.
    pub(crate) fn is(&self, tcx: TyCtxt<'_>, item: DefId, role: Role) -> bool {
        self.role(tcx, item) == Some(role)
    }

    /// The model of a call to `item` (a function, or the method of an impl), also
    /// through the trait method an impl's method implements.
    pub(crate) fn of(&self, tcx: TyCtxt<'_>, item: DefId) -> Option<Model> {
        if let Some(model) = self.user_of(tcx, item) {
            return Some(model);
        }
        self.by_item
            .get(&item)
            .or_else(|| self.by_item.get(&tcx.trait_item_of(item)?))
            .cloned()
            .or_else(|| array_method(tcx, item))
            .or_else(|| allocator_release(tcx, item))
    }
}

/// A function of the allocator protocol that no row names: named `dealloc` or
/// `deallocate`, taking a pointer and then the `core::alloc::Layout` it was allocated
/// with, returning nothing. `GlobalAlloc::dealloc` and `Allocator::deallocate` are such
/// functions, and so are the allocator traits crates declare for themselves (a copy of
/// the unstable `Allocator`, an arena's own) and the methods of their impls: a call
/// releases the pointer, whatever allocator runs.
pub(crate) fn allocator_release(tcx: TyCtxt<'_>, item: DefId) -> Option<Model> {
    if !matches!(tcx.def_kind(item), DefKind::Fn | DefKind::AssocFn) {
        return None;
    }
    let name = tcx.item_name(item);
    if !matches!(name.as_str(), "dealloc" | "deallocate") {
        return None;
    }
    let sig = tcx.fn_sig(item).instantiate_identity().skip_binder();
    if !sig.output().is_unit() {
        return None;
    }
    let inputs = sig.inputs();
    let layout = inputs
        .iter()
        .position(|ty| crate::lower::types::adt_is(tcx, *ty, "core", "Layout"))?;
    let pointer = layout.checked_sub(1)?;
    if !crate::lower::types::is_pointer(tcx, inputs[pointer]) {
        return None;
    }
    let shown = match tcx.trait_of_assoc(item) {
        Some(t) => format!("{}::{name}", tcx.item_name(t)),
        None => name.to_string(),
    };
    Some(Model {
        sem: Sem::Release(tensor_lint_analyzer::models::ReleaseHow::Dealloc, pointer),
        name: shown,
    })
}

/// An inherent method or constructor of an array or tensor type (ndarray's arrays,
/// tch's and candle's `Tensor`, by the type the compiler resolved) that no row names:
/// those types have hundreds of methods that follow a few naming rules, so they are
/// modelled by the method tables' names for arrays and tensors (`mapv`, `zeros`,
/// `matmul`, tch's `_` suffix for in place) rather than row by row.
fn array_method(tcx: TyCtxt<'_>, item: DefId) -> Option<Model> {
    let imp = tcx.impl_of_assoc(item)?;
    if tcx.impl_is_of_trait(imp) {
        return None;
    }
    let self_ty = tcx.type_of(imp).instantiate_identity().skip_norm_wip();
    let class = crate::lower::types::class_of(tcx, self_ty);
    let type_name = match class {
        TyClass::Tensor => "Tensor",
        TyClass::Array | TyClass::ArrayView => "Array",
        _ => return None,
    };
    let name = tcx.item_name(item).to_string();
    let table = tensor_lint_analyzer::models::Models::default();
    let (sem, shown) = if tcx.associated_item(item).is_method() {
        (table.method(class, &name)?, name)
    } else {
        let shown = format!("{type_name}::{name}");
        (table.path(&[type_name.to_string(), name])?, shown)
    };
    Some(Model { sem, name: shown })
}

/// The path of an item as a user writes it: its crate and modules, then its name; a
/// method is named under its type (`crate::module::Type::method`), or under its trait
/// when no type is known.
fn item_path(tcx: TyCtxt<'_>, item: DefId) -> Vec<String> {
    let named = |def: DefId| -> Vec<String> {
        std::iter::once(tcx.crate_name(def.krate).to_string())
            .chain(
                tcx.def_path(def)
                    .data
                    .iter()
                    .filter_map(|d| d.data.get_opt_name().map(|n| n.to_string())),
            )
            .collect()
    };
    if tcx.def_kind(item) == DefKind::AssocFn {
        let parent = tcx.parent(item);
        let owner = match tcx.def_kind(parent) {
            DefKind::Impl { .. } => tcx
                .type_of(parent)
                .skip_binder()
                .ty_adt_def()
                .map(|adt| adt.did()),
            _ => Some(parent),
        };
        if let Some(owner) = owner {
            let mut path = named(owner);
            path.push(tcx.item_name(item).to_string());
            return path;
        }
    }
    named(item)
}

/// The items a model path names (none when its crate is not loaded).
pub(crate) fn resolve(tcx: TyCtxt<'_>, path: &str) -> Vec<DefId> {
    let segments: Vec<&str> = path.split("::").collect();
    let Some((first, rest)) = segments.split_first() else {
        return Vec::new();
    };
    // `[T]::method`, `*mut T::method`, `{u32,u64}::method`: the inherent methods of
    // built-in types.
    let builtins: Vec<SimplifiedType> = alternatives(first).filter_map(builtin_type).collect();
    if !builtins.is_empty() {
        let [method] = rest else {
            return Vec::new();
        };
        let name = Symbol::intern(method);
        return builtins
            .into_iter()
            .flat_map(|simplified| tcx.incoherent_impls(simplified).iter())
            .flat_map(|&imp| assoc_named(tcx, imp, name))
            .collect();
    }
    // A `#![no_std]` crate reaches what `std` re-exports through `core` and `alloc`.
    let mut krates = crates_named(tcx, first);
    if krates.is_empty() && *first == "std" {
        krates = crates_named(tcx, "core");
        krates.extend(crates_named(tcx, "alloc"));
    }
    let mut items: Vec<DefId> = krates.into_iter().map(|krate| krate.as_def_id()).collect();
    for segment in rest {
        let names: Vec<Symbol> = alternatives(segment).map(Symbol::intern).collect();
        items = items
            .into_iter()
            .flat_map(|item| {
                names
                    .iter()
                    .flat_map(move |&name| children_named(tcx, item, name))
                    .collect::<Vec<_>>()
            })
            .collect();
        let mut seen = rustc_data_structures::fx::FxHashSet::default();
        items.retain(|item| seen.insert(*item));
    }
    items
}

/// The names of a path segment: `{A,B}` is any of the alternatives.
fn alternatives(segment: &str) -> impl Iterator<Item = &str> {
    segment
        .trim_start_matches('{')
        .trim_end_matches('}')
        .split(',')
        .map(str::trim)
}

/// The built-in type a path's first segment names: slices, `str`, raw pointers, the
/// integers.
fn builtin_type(name: &str) -> Option<SimplifiedType> {
    use rustc_middle::ty::{IntTy, UintTy};
    Some(match name {
        "[T]" => SimplifiedType::Slice,
        "str" => SimplifiedType::Str,
        "*mut T" => SimplifiedType::Ptr(rustc_hir::Mutability::Mut),
        "*const T" => SimplifiedType::Ptr(rustc_hir::Mutability::Not),
        "usize" => SimplifiedType::Uint(UintTy::Usize),
        "u64" => SimplifiedType::Uint(UintTy::U64),
        "u32" => SimplifiedType::Uint(UintTy::U32),
        "u16" => SimplifiedType::Uint(UintTy::U16),
        "u8" => SimplifiedType::Uint(UintTy::U8),
        "isize" => SimplifiedType::Int(IntTy::Isize),
        "i64" => SimplifiedType::Int(IntTy::I64),
        "i32" => SimplifiedType::Int(IntTy::I32),
        _ => return None,
    })
}

/// Whether the crate a row names is loaded (the built-in types always are).
fn crate_loaded(tcx: TyCtxt<'_>, path: &str) -> bool {
    let first = path.split("::").next().unwrap_or("");
    alternatives(first).any(|n| builtin_type(n).is_some()) || !crates_named(tcx, first).is_empty()
}

fn crates_named(tcx: TyCtxt<'_>, name: &str) -> Vec<CrateNum> {
    let name = Symbol::intern(name);
    std::iter::once(LOCAL_CRATE)
        .chain(tcx.crates(()).iter().copied())
        .filter(|&krate| tcx.crate_name(krate) == name)
        .collect()
}

/// The items named `name` inside `item`: a module's children (re-exports followed),
/// a type's inherent associated functions, a trait's methods.
fn children_named(tcx: TyCtxt<'_>, item: DefId, name: Symbol) -> Vec<DefId> {
    match tcx.def_kind(item) {
        DefKind::Mod => {
            let children = match item.as_local() {
                Some(local) => tcx.module_children_local(local),
                None => tcx.module_children(item),
            };
            children
                .iter()
                .filter(|child| child.ident.name == name)
                .filter_map(|child| child.res.opt_def_id())
                .collect()
        }
        DefKind::Struct | DefKind::Enum | DefKind::Union | DefKind::TyAlias => {
            let ty_item = match tcx.def_kind(item) {
                DefKind::TyAlias => match tcx.type_of(item).skip_binder().ty_adt_def() {
                    Some(adt) => adt.did(),
                    None => return Vec::new(),
                },
                _ => item,
            };
            tcx.inherent_impls(ty_item)
                .iter()
                .flat_map(|&imp| assoc_named(tcx, imp, name))
                .collect()
        }
        DefKind::Trait => assoc_named(tcx, item, name),
        _ => Vec::new(),
    }
}

fn assoc_named(tcx: TyCtxt<'_>, container: DefId, name: Symbol) -> Vec<DefId> {
    tcx.associated_items(container)
        .filter_by_name_unhygienic(name)
        .map(|assoc| assoc.def_id)
        .collect()
}
