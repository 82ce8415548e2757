//! Library models: what calls into ndarray, std, rayon, crossbeam, threads and
//! PyTorch-style tensor crates do to memory, plus the user's own models from
//! `tensor-lint.toml`.
//!
//! A model maps a method name (for any receiver of a class) or a path suffix to a
//! [`Sem`]antics; the tables in [`table`] are data, and what needs code (view geometry,
//! `s![]`, parallel regions) is done by the lowering from the [`Sem`] it finds here.

pub mod table;

use serde::Deserialize;

use crate::ir::TyClass;

/// The effect of a user model.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Effect {
    /// Returns newly allocated memory that must be released.
    Alloc,
    /// Releases argument `arg`.
    Free,
    /// Returns a view of argument `arg`.
    View,
    /// Overwrites argument `arg` in place.
    Inplace,
    /// Reads argument `arg`.
    Read,
    /// Writes argument `arg`.
    Write,
}

/// An extra API model, as users write it in `tensor-lint.toml`:
///
/// ```toml
/// [[models]]
/// path = "mypool::Pool::checkout"  # a path, matched by its trailing segments
/// effect = "alloc"                 # alloc | free | view | inplace | read | write
///
/// [[models]]
/// method = "checkin"               # or a method name, for any receiver
/// effect = "free"
/// arg = 1                          # which argument (receiver = 0 for methods);
///                                  # needed by free / view / inplace / read / write
/// ```
///
/// Exactly one of `path` and `method` is given.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ApiModel {
    #[serde(default)]
    pub path: Option<String>,
    #[serde(default)]
    pub method: Option<String>,
    pub effect: Effect,
    #[serde(default)]
    pub arg: Option<usize>,
}

impl ApiModel {
    /// Why this model cannot be used, if it cannot.
    pub fn validate(&self) -> Result<(), String> {
        match (&self.path, &self.method) {
            (Some(_), Some(_)) => return Err("give either `path` or `method`, not both".into()),
            (None, None) => return Err("a model needs `path` or `method`".into()),
            _ => {}
        }
        if self.effect != Effect::Alloc && self.arg.is_none() {
            return Err(format!("effect `{:?}` needs `arg`", self.effect).to_lowercase());
        }
        Ok(())
    }

    fn sem(&self) -> Sem {
        let arg = self.arg.unwrap_or(0);
        match self.effect {
            Effect::Alloc => Sem::OwedAlloc,
            Effect::Free => Sem::Release(ReleaseHow::Function, arg),
            Effect::View => Sem::ViewOfArg(arg),
            Effect::Inplace => Sem::InPlace(arg),
            Effect::Read => Sem::ReadArg(arg),
            Effect::Write => Sem::WriteArg(arg),
        }
    }
}

/// How an allocation's shape is found in the call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ctor {
    /// Argument `n` is a shape (`zeros((n, m))`, `zeros(&[n, m])`, `zeros(n)`).
    Shape(usize),
    /// The length is argument `n` (`with_capacity(n)`).
    Len(usize),
    /// Same shape as argument `n` (`to_owned`, `copy`, `zeros_like`).
    Like(usize),
    /// A literal's element count (`arr1(&[..])`).
    Literal(usize),
    Unknown,
}

/// Geometry-changing view methods whose semantics the lowering computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ViewKind {
    /// Same memory: `view`, `view_mut`, `as_slice`, `iter`, `shallow_clone`, `borrow`.
    Whole,
    /// ndarray `slice*(s![..])`.
    SliceMacro,
    /// tch `narrow(dim, start, len)`.
    Narrow,
    /// tch `slice(dim, start, end, step)`.
    TchSlice,
    /// ndarray `t()`, tch `tr()`/`t_()` shape.
    Transpose,
    /// tch `transpose(d0, d1)`, ndarray `swap_axes` as a view.
    TransposeDims,
    Permute,
    Broadcast,
    Reshape,
    Diag,
    /// `index_axis(Axis(k), i)`, `row(i)`, `column(j)`, tch `select(dim, i)`.
    IndexAxis(Option<usize>),
    /// `split_at(Axis(k), i)` / `split_at_mut(i)`: a pair.
    SplitAt,
    /// `chunks(k)` / `chunks_mut(k)` / `axis_chunks_iter*(Axis, k)`: items are chunks.
    Chunks,
    /// `axis_iter*(Axis(k))`, `outer_iter*`, `rows`, `iter_mut`: items are sub-views.
    AxisIter,
    /// Anything else that aliases (`windows`, `lanes`, `reversed_axes`).
    Other,
}

/// Parallel iterator sources and consumers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParKind {
    /// `par_iter`, `par_iter_mut`, `into_par_iter` on a collection: one item per element.
    Elements,
    /// `par_chunks(_mut)(k)` / `par_chunks_exact(_mut)`: one item per chunk.
    Chunks,
    /// A parallel iterator adapter that keeps the items (`enumerate`, `zip`, `map`...).
    Adapter,
    /// A consumer that runs its closure per item (`for_each`, `map` + `sum`, ...).
    Consume,
    /// `par_for_each` / `par_map_inplace` / `par_mapv_inplace` on an array or `Zip`.
    ArrayForEach,
}

/// How a modelled release frees.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReleaseHow {
    Drop,
    Dealloc,
    BoxFromRaw,
    Function,
}

/// What a modelled API does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sem {
    /// Returns new memory; `Ctor` finds its size.
    Alloc(Ctor),
    /// New memory that must be released by a modelled or annotated release (a user's
    /// `effect = "alloc"` model: pools, arenas).
    OwedAlloc,
    /// `std::alloc::alloc(layout)`: new memory released by `dealloc`.
    RawAlloc,
    /// `realloc(p, layout, size)`: releases `p`, returns new memory.
    Realloc,
    /// Returns a view of the receiver.
    View(ViewKind),
    /// Returns a view of argument `n`.
    ViewOfArg(usize),
    /// Returns a shared handle to the receiver's memory (`shallow_clone`, `Arc::clone`).
    Share,
    /// `as_ptr`, `as_mut_ptr`, `as_mut_ptr_range`, `NonNull::from`.
    RawPtr,
    /// `p.add(n)`, `p.offset(n)`, `p.sub(n)` (sign is -1 for `sub`).
    PtrStep(i8),
    /// `slice::from_raw_parts(_mut)(p, len)`.
    FromRawParts,
    /// `ArrayView*::from_shape_ptr(shape, p)`.
    FromShapePtr,
    /// `*p` read through a method (`p.read()`, `ptr::read(p)`); of an owner
    /// (`ptr::read(&v)`) it is a bitwise copy, as [`Sem::BitCopy`].
    PtrRead,
    /// `mem::transmute_copy(&x)`: a bitwise copy of argument `n`. Of an owner, the copy
    /// owns the same memory (the original is then forgotten, or both drop it).
    BitCopy(usize),
    /// `p.write(v)`, `ptr::write(p, v)`.
    PtrWrite,
    /// Overwrites argument `n` in place from its old value (receiver = 0).
    InPlace(usize),
    /// Overwrites argument `n` without reading it (`fill`, `assign`, `copy_from_slice`).
    Overwrite(usize),
    ReadArg(usize),
    WriteArg(usize),
    /// Releases argument `n`.
    Release(ReleaseHow, usize),
    /// `Box::leak`, `mem::forget`, `into_raw`, `ManuallyDrop::new`.
    Leak(usize),
    /// `Vec::push(x)`, `insert`: the argument is stored into the receiver.
    StoreArg(usize),
    Par(ParKind),
    /// `rayon::join(a, b)`.
    Join,
    /// `rayon::scope(|s| ..)` / `std::thread::scope(|s| ..)` / `crossbeam::scope`.
    Scope,
    /// `s.spawn(closure)` on a scope handle.
    Spawn,
    /// `std::thread::spawn(closure)`.
    ThreadSpawn,
    /// `Zip::from(&mut a)` / `.and(&b)`: builds a lock-step iteration over arrays.
    ZipFrom,
    /// `set_requires_grad(b)` / `requires_grad_(b)`.
    RequiresGrad,
    /// `tch::no_grad(|| ..)`: runs the closure with autograd off.
    NoGrad,
    /// Reads the receiver and returns a scalar or new value (`sum`, `len`, `dot`).
    Read,
}

/// Looks up the model of `method` called on a receiver of class `recv`.
pub fn method_sem(models: &[ApiModel], recv: TyClass, method: &str) -> Option<Sem> {
    for m in models.iter().rev() {
        if m.method.as_deref() == Some(method) && m.validate().is_ok() {
            return Some(m.sem());
        }
    }
    if recv == TyClass::Tensor {
        if let Some(sem) = table::lookup(table::TCH_METHODS, method)
            .or_else(|| table::lookup(table::TENSOR_ONLY_METHODS, method))
        {
            return Some(sem);
        }
        // tch naming: a trailing `_` means in place, returning an alias of the receiver.
        if method.ends_with('_') && method.len() > 1 {
            return Some(Sem::InPlace(0));
        }
    }
    if let Some(sem) = table::lookup(table::METHODS, method) {
        return Some(sem);
    }
    if recv == TyClass::Unknown {
        if let Some(sem) = table::lookup(table::TCH_METHODS, method) {
            return Some(sem);
        }
        if method.ends_with('_') && method.len() > 1 && !method.starts_with('_') {
            return Some(Sem::InPlace(0));
        }
    }
    None
}

/// Whether `method_sem` calls `method` in place only because of tch's trailing `_`
/// naming rule: a crate-local method of that name then says better what it does.
pub fn in_place_by_naming_only(models: &[ApiModel], method: &str) -> bool {
    method.ends_with('_')
        && !models.iter().any(|m| m.method.as_deref() == Some(method))
        && [
            table::TCH_METHODS,
            table::TENSOR_ONLY_METHODS,
            table::METHODS,
        ]
        .iter()
        .all(|t| table::lookup(t, method).is_none())
}

/// Looks up the model of a path call (`Array2::zeros`, `std::alloc::alloc`), matching
/// the trailing segments of `path`.
pub fn path_sem(models: &[ApiModel], path: &[String]) -> Option<Sem> {
    for m in models.iter().rev() {
        if let Some(p) = &m.path {
            let want: Vec<&str> = p.split("::").collect();
            if m.validate().is_ok() && ends_with(path, &want) {
                return Some(m.sem());
            }
        }
    }
    table::PATHS
        .iter()
        .filter(|(suffix, _)| {
            let want: Vec<&str> = suffix.split("::").collect();
            ends_with(path, &want)
        })
        .max_by_key(|(suffix, _)| suffix.matches("::").count())
        .map(|(_, sem)| *sem)
}

fn ends_with(path: &[String], want: &[&str]) -> bool {
    want.len() <= path.len()
        && path[path.len() - want.len()..]
            .iter()
            .zip(want)
            .all(|(a, b)| a == b)
}

/// The symbol the lowering gives the result of a thread-count call
/// (`rayon::current_num_threads()`, `num_cpus::get()`): sizes that mention it are
/// per-thread, such as `vec![0u64; rayon::current_num_threads()]`. No binding can be
/// named like it.
pub const THREAD_COUNT: &str = "current_num_threads()";

/// Whether a call of `name` (a path such as `rayon::current_num_threads`, or a method
/// name) returns the number of worker threads.
pub fn is_thread_count_call(name: &str) -> bool {
    let path: Vec<String> = name.split("::").map(str::to_string).collect();
    table::THREAD_COUNT_CALLS.iter().any(|suffix| {
        let want: Vec<&str> = suffix.split("::").collect();
        ends_with(&path, &want)
    })
}

/// The in-place form of an out-of-place op or operator (`mapv` -> `mapv_into`,
/// `-` -> `-=`), when there is one.
pub fn inplace_form(op: &str) -> Option<&'static str> {
    table::INPLACE_FORMS
        .iter()
        .find(|(n, _)| *n == op)
        .map(|(_, f)| *f)
}

/// Whether autograd saves the output of tensor op `op` for its backward pass.
pub fn saves_output(op: &str) -> bool {
    table::SAVES_OUTPUT.contains(&op)
}

/// Class of a type name seen in a path (`Array2` in `Array2::zeros`).
pub fn class_of_type_name(name: &str) -> TyClass {
    table::TYPE_CLASSES
        .iter()
        .find(|(n, _)| *n == name)
        .map_or(TyClass::Unknown, |(_, c)| *c)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_count_calls_match_by_path_suffix() {
        assert!(is_thread_count_call("rayon::current_num_threads"));
        assert!(is_thread_count_call("current_num_threads"));
        assert!(is_thread_count_call("num_cpus::get"));
        assert!(!is_thread_count_call("get"));
        assert!(!is_thread_count_call("rayon::join"));
    }

    #[test]
    fn trailing_underscore_on_a_tensor_is_in_place() {
        assert_eq!(
            method_sem(&[], TyClass::Tensor, "relu_"),
            Some(Sem::InPlace(0))
        );
        assert_eq!(
            method_sem(&[], TyClass::Tensor, "relu"),
            Some(Sem::Alloc(Ctor::Like(0)))
        );
    }

    #[test]
    fn path_models_match_the_longest_suffix() {
        let p = |s: &str| s.split("::").map(String::from).collect::<Vec<_>>();
        assert_eq!(
            path_sem(&[], &p("std::alloc::dealloc")),
            Some(Sem::Release(ReleaseHow::Dealloc, 0))
        );
        assert_eq!(
            path_sem(&[], &p("ndarray::Array2::zeros")),
            Some(Sem::Alloc(Ctor::Shape(0)))
        );
        assert_eq!(
            path_sem(&[], &p("Box::from_raw")),
            Some(Sem::Release(ReleaseHow::BoxFromRaw, 0))
        );
        assert_eq!(path_sem(&[], &p("frobnicate")), None);
    }

    #[test]
    fn user_models_override_builtins_and_deserialize_from_toml_shape() {
        let m: ApiModel = serde_json::from_str(r#"{"method":"checkin","effect":"free","arg":1}"#)
            .expect("valid model");
        assert_eq!(
            method_sem(&[m], TyClass::Unknown, "checkin"),
            Some(Sem::Release(ReleaseHow::Function, 1))
        );
        let bad = serde_json::from_str::<ApiModel>(r#"{"method":"x","effect":"free","bogus":1}"#);
        assert!(bad.is_err());
    }

    #[test]
    fn model_without_required_argument_is_invalid() {
        let m = ApiModel {
            path: Some("a::free".into()),
            method: None,
            effect: Effect::Free,
            arg: None,
        };
        assert!(m.validate().is_err());
        assert_eq!(path_sem(&[m], &["a".into(), "free".into()]), None);
    }
}
