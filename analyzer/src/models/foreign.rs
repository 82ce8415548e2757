//! What the crate's own foreign functions do with the handles they hand out.
//!
//! A C API hands out handles in pairs of functions named alike: `ltLayoutCreate` /
//! `ltLayoutDestroy`, `TF_NewTensor` / `TF_DeleteTensor`, `raw_new` / `raw_free`. A
//! handle the first makes (returned, or stored through an out-parameter `*mut *mut T`)
//! is owed to the second. Pairs are found by name: the words of the two names, with one
//! creating verb and one releasing verb ([`table::FOREIGN_CREATE_VERBS`],
//! [`table::FOREIGN_RELEASE_VERBS`]) taken out, must be the same. Both functions must be
//! declared by the crate, so a lone `*_new` never makes a handle owed. Annotations on the
//! declarations (`#[tensor_lint::alloc]`, `#[tensor_lint::free(p)]`) say the same thing
//! by hand, and configuration rows say it for functions of other crates. Two more rules
//! pair what names leave alone: the type pointed to (one releasing function of `*mut T`
//! for a crate struct `T` makes every other function returning `*mut T` a maker, unless
//! it is given a `T` or looks one up), and an allocator passed in (a function given a
//! crate struct with a releasing function-pointer field, such as `Allocator { free }`,
//! and one out-parameter, stores there what that allocator must free).

use std::collections::BTreeMap;

use super::table;
use crate::ir::Annotations;

/// How a parameter or the result of a foreign function is typed, as far as handles go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ForeignTy {
    /// A raw pointer (`*mut T`, `*const T`) or a pointer type alias.
    Ptr,
    /// A pointer to a pointer (`*mut *mut T`, `&mut *mut T`, `*mut Alias`): where the
    /// function may store a handle it makes.
    PtrToPtr,
    /// `*mut Name` / `*const Name` where `Name` may be a pointer alias the crate declares.
    PtrToNamed(String),
    /// `Name`, which may be a pointer alias the crate declares.
    Named(String),
    Other,
}

impl ForeignTy {
    /// Resolved through the crate's pointer aliases (`type Handle = *mut Opaque`).
    fn resolve(&self, aliases: &[String]) -> ForeignTy {
        let alias = |n: &str| aliases.iter().any(|a| a == n);
        match self {
            ForeignTy::PtrToNamed(n) if alias(n) => ForeignTy::PtrToPtr,
            ForeignTy::PtrToNamed(_) => ForeignTy::Ptr,
            ForeignTy::Named(n) if alias(n) => ForeignTy::Ptr,
            ForeignTy::Named(_) => ForeignTy::Other,
            other => other.clone(),
        }
    }
}

/// A function an `extern` block of the crate declares.
#[derive(Clone, Debug)]
pub struct ForeignFn {
    pub name: String,
    pub params: Vec<ForeignTy>,
    pub ret: ForeignTy,
    pub annotations: Annotations,
}

/// What a foreign function does with handles.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Foreign {
    /// Makes a handle that `release` releases: its result, or what it stores through
    /// parameter `out`.
    Create { out: Option<usize>, release: String },
    /// Releases the handle in argument `arg`.
    Release { arg: usize },
}

/// The roles of the crate's foreign functions, by name.
///
/// `allocators` are the crate's allocator structs, with the field holding their
/// releasing function (`Allocator::free`): a function given a pointer to one and one
/// out-parameter (`get_name(m, alloc, &mut out)`) makes what it stores there with that
/// allocator, owed to its releasing function.
pub fn roles(
    fns: &[ForeignFn],
    aliases: &[String],
    allocators: &[(String, String)],
    structs: &[String],
) -> BTreeMap<String, Foreign> {
    let mut out = BTreeMap::new();
    let mut creates: BTreeMap<Vec<String>, Vec<(&str, Option<usize>)>> = BTreeMap::new();
    let mut releases: BTreeMap<Vec<String>, Vec<(&str, usize)>> = BTreeMap::new();
    for f in fns {
        let params: Vec<ForeignTy> = f.params.iter().map(|p| p.resolve(aliases)).collect();
        let ret = f.ret.resolve(aliases);
        let out_param = {
            let outs: Vec<usize> = (0..params.len())
                .filter(|&i| params[i] == ForeignTy::PtrToPtr)
                .collect();
            match outs.as_slice() {
                [one] => Some(*one),
                _ => None,
            }
        };
        // What it makes: its pointer result, else its one out-parameter.
        let made = if ret == ForeignTy::Ptr {
            Some(None)
        } else {
            out_param.map(Some)
        };
        let first_ptr = params
            .iter()
            .position(|p| matches!(p, ForeignTy::Ptr | ForeignTy::PtrToPtr));
        if f.annotations.alloc {
            if let Some(made) = made {
                out.insert(
                    f.name.clone(),
                    Foreign::Create {
                        out: made,
                        release: "a `#[tensor_lint::free]` function".into(),
                    },
                );
            }
            continue;
        }
        if let Some(&arg) = f.annotations.frees.first() {
            out.insert(f.name.clone(), Foreign::Release { arg });
            continue;
        }
        let allocator = params.iter().zip(&f.params).find_map(|(_, p)| match p {
            ForeignTy::PtrToNamed(n) => allocators.iter().find(|(a, _)| a == n),
            _ => None,
        });
        if let (Some((ty, field)), Some(i)) = (allocator, out_param) {
            out.insert(
                f.name.clone(),
                Foreign::Create {
                    out: Some(i),
                    release: format!("{ty}::{field}"),
                },
            );
            continue;
        }
        let words = words(&f.name);
        let verb = |verbs: &[&str]| -> Option<Vec<String>> {
            let at: Vec<usize> = (0..words.len())
                .filter(|&i| verbs.contains(&words[i].as_str()))
                .collect();
            let [i] = at.as_slice() else { return None };
            let mut stem = words.clone();
            stem.remove(*i);
            (!stem.is_empty()).then_some(stem)
        };
        if let (Some(stem), Some(made)) = (verb(table::FOREIGN_CREATE_VERBS), made) {
            creates.entry(stem).or_default().push((&f.name, made));
        } else if let (Some(stem), Some(arg)) = (verb(table::FOREIGN_RELEASE_VERBS), first_ptr) {
            releases.entry(stem).or_default().push((&f.name, arg));
        }
    }
    for (stem, makers) in &creates {
        // One releasing function per stem: with two, which one a handle is owed to is
        // not the name's to say.
        let Some([(release, arg)]) = releases.get(stem).map(Vec::as_slice) else {
            continue;
        };
        out.entry(release.to_string())
            .or_insert(Foreign::Release { arg: *arg });
        for (name, made) in makers {
            out.entry(name.to_string()).or_insert(Foreign::Create {
                out: *made,
                release: release.to_string(),
            });
        }
    }
    by_pointee_type(fns, aliases, structs, &mut out);
    out
}

/// Pairs found by the type the handle points to, for functions the names leave alone:
/// when the crate declares exactly one releasing function of `*mut T` (`rv_free(v: *mut
/// RawValue)`), a function returning `*mut T` (`rv_from_int`, `rv_tuple`) makes a `T`
/// owed to it, unless it is also given a `T` (it may hand out part of it) or its name
/// says it only looks one up ([`table::FOREIGN_LOOKUP_WORDS`]). `T` must be one of the
/// crate's own (opaque) structs, in `structs`: `c_void` or `u8` say nothing of what
/// is pointed to.
fn by_pointee_type(
    fns: &[ForeignFn],
    aliases: &[String],
    structs: &[String],
    out: &mut BTreeMap<String, Foreign>,
) {
    let pointee = |t: &ForeignTy| match t {
        ForeignTy::PtrToNamed(n) if !aliases.contains(n) && structs.contains(n) => Some(n.clone()),
        _ => None,
    };
    let mut releases: BTreeMap<String, Vec<(&str, usize)>> = BTreeMap::new();
    for f in fns.iter().filter(|f| names_a_release(&f.name)) {
        if let Some((i, ty)) = f
            .params
            .iter()
            .enumerate()
            .find_map(|(i, p)| Some((i, pointee(p)?)))
        {
            releases.entry(ty).or_default().push((&f.name, i));
        }
    }
    for f in fns {
        if out.contains_key(&f.name) || names_a_release(&f.name) {
            continue;
        }
        let Some(ty) = pointee(&f.ret) else { continue };
        let Some([(release, arg)]) = releases.get(&ty).map(Vec::as_slice) else {
            continue;
        };
        let given_one = f.params.iter().any(|p| pointee(p).as_ref() == Some(&ty));
        let lookup = words(&f.name)
            .iter()
            .any(|w| table::FOREIGN_LOOKUP_WORDS.contains(&w.as_str()));
        if given_one || lookup {
            continue;
        }
        out.entry(release.to_string())
            .or_insert(Foreign::Release { arg: *arg });
        out.insert(
            f.name.clone(),
            Foreign::Create {
                out: None,
                release: release.to_string(),
            },
        );
    }
}

/// Whether the words of `name` say it releases (`free`, `release_value`).
pub fn names_a_release(name: &str) -> bool {
    words(name)
        .iter()
        .any(|w| table::FOREIGN_RELEASE_VERBS.contains(&w.as_str()))
}

/// The lowercase words of an identifier: split at `_` and where a lowercase letter or a
/// digit is followed by an uppercase one (`ltLayoutCreate` → `lt layout create`,
/// `TF_NewTensor` → `tf new tensor`).
fn words(name: &str) -> Vec<String> {
    let mut out = Vec::new();
    for part in name.split('_').filter(|p| !p.is_empty()) {
        let mut cur = String::new();
        let mut prev_lower = false;
        for c in part.chars() {
            if c.is_uppercase() && prev_lower && !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = c.is_lowercase() || c.is_ascii_digit();
            cur.extend(c.to_lowercase());
        }
        if !cur.is_empty() {
            out.push(cur);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(name: &str, params: Vec<ForeignTy>, ret: ForeignTy) -> ForeignFn {
        ForeignFn {
            name: name.into(),
            params,
            ret,
            annotations: Annotations::default(),
        }
    }

    #[test]
    fn words_split_at_case_and_underscores() {
        assert_eq!(words("ltLayoutCreate"), ["lt", "layout", "create"]);
        assert_eq!(words("TF_NewTensor"), ["tf", "new", "tensor"]);
        assert_eq!(words("raw_new"), ["raw", "new"]);
        assert_eq!(words("cuMemAlloc_v2"), ["cu", "mem", "alloc", "v2"]);
    }

    #[test]
    fn pairs_need_both_ends_and_one_release_per_stem() {
        use ForeignTy::*;
        let fns = vec![
            f("ltLayoutCreate", vec![PtrToPtr, Other], Other),
            f("ltLayoutDestroy", vec![Ptr], Other),
            f("ltLayoutSetAttr", vec![Ptr, Other], Other),
            f("TF_NewTensor", vec![Other], Ptr),
            f("TF_DeleteTensor", vec![Ptr], Other),
            // A maker without a release is nothing owed.
            f("widget_new", vec![], Ptr),
            // Two releases for one stem: ambiguous.
            f("blob_new", vec![], Ptr),
            f("blob_free", vec![Ptr], Other),
            f("blob_release", vec![Ptr], Other),
        ];
        let r = roles(&fns, &[], &[], &[]);
        assert_eq!(
            r.get("ltLayoutCreate"),
            Some(&Foreign::Create {
                out: Some(0),
                release: "ltLayoutDestroy".into()
            })
        );
        assert_eq!(r.get("ltLayoutDestroy"), Some(&Foreign::Release { arg: 0 }));
        assert_eq!(
            r.get("TF_NewTensor"),
            Some(&Foreign::Create {
                out: None,
                release: "TF_DeleteTensor".into()
            })
        );
        assert_eq!(r.get("ltLayoutSetAttr"), None);
        assert_eq!(r.get("widget_new"), None);
        assert_eq!(r.get("blob_new"), None);
    }

    #[test]
    fn pointer_aliases_make_out_parameters() {
        use ForeignTy::*;
        let fns = vec![
            f(
                "streamCreate",
                vec![PtrToNamed("Stream".into()), Other],
                Other,
            ),
            f("streamDestroy", vec![Named("Stream".into())], Other),
        ];
        let r = roles(&fns, &["Stream".to_string()], &[], &[]);
        assert_eq!(
            r.get("streamCreate"),
            Some(&Foreign::Create {
                out: Some(0),
                release: "streamDestroy".into()
            })
        );
        assert_eq!(r.get("streamDestroy"), Some(&Foreign::Release { arg: 0 }));
    }

    #[test]
    fn one_release_of_a_crate_type_pairs_the_functions_returning_it() {
        use ForeignTy::*;
        let value = || PtrToNamed("RawValue".into());
        let fns = vec![
            f("rv_from_int", vec![Other], value()),
            f("rv_tuple", vec![PtrToPtr, Other], value()),
            f("rv_free", vec![value()], Other),
            f("rv_get_field", vec![PtrToPtr, Other], value()),
            f("rv_child", vec![value(), Other], value()),
            f("buf_from_len", vec![Other], PtrToNamed("c_void".into())),
            f("buf_free", vec![PtrToNamed("c_void".into())], Other),
        ];
        let r = roles(&fns, &[], &[], &["RawValue".to_string()]);
        let made = |release: &str| {
            Some(Foreign::Create {
                out: None,
                release: release.into(),
            })
        };
        assert_eq!(r.get("rv_from_int"), made("rv_free").as_ref());
        assert_eq!(r.get("rv_tuple"), made("rv_free").as_ref());
        assert_eq!(r.get("rv_free"), Some(&Foreign::Release { arg: 0 }));
        // A lookup, and a function given a value of the type, hand out borrowed ones.
        assert_eq!(r.get("rv_get_field"), None);
        assert_eq!(r.get("rv_child"), None);
        // `c_void` is no type of the crate's: it says nothing.
        assert_eq!(r.get("buf_from_len"), None);
    }

    #[test]
    fn an_allocator_argument_makes_the_out_parameter_owed_to_its_free() {
        use ForeignTy::*;
        let fns = vec![f(
            "meta_description",
            vec![Ptr, PtrToNamed("Allocator".into()), PtrToPtr],
            Other,
        )];
        let r = roles(&fns, &[], &[("Allocator".into(), "free".into())], &[]);
        assert_eq!(
            r.get("meta_description"),
            Some(&Foreign::Create {
                out: Some(2),
                release: "Allocator::free".into()
            })
        );
    }
}
