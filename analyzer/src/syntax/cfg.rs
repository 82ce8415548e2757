//! Conditional compilation as far as it can be decided without a target: which cargo
//! features are on and whether test code is compiled. `#[cfg]` items that are off are
//! removed after parsing, as rustc removes them; conditions that depend on the target
//! (`unix`, `target_endian`, `target_pointer_width`) are not decided, and the lowering
//! treats adjacent statements under such conditions as alternatives.

use std::collections::BTreeSet;

/// What is known of the configuration the code is compiled in.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CfgSet {
    /// The enabled cargo features; `None` when not known (a loose file), and then any
    /// feature may be on.
    pub features: Option<BTreeSet<String>>,
    /// Whether `cfg(test)` code is compiled; `None` when not known.
    pub test: Option<bool>,
}

impl CfgSet {
    /// The value of a `cfg` predicate, when this configuration decides it.
    pub fn eval(&self, predicate: &syn::Meta) -> Option<bool> {
        match predicate {
            syn::Meta::Path(p) if p.is_ident("test") => self.test,
            syn::Meta::NameValue(nv) if nv.path.is_ident("feature") => {
                let syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(name),
                    ..
                }) = &nv.value
                else {
                    return None;
                };
                self.features
                    .as_ref()
                    .map(|enabled| enabled.contains(&name.value()))
            }
            syn::Meta::List(list) => {
                let parts = list
                    .parse_args_with(
                        syn::punctuated::Punctuated::<syn::Meta, syn::Token![,]>::parse_terminated,
                    )
                    .ok()?;
                let values: Vec<Option<bool>> = parts.iter().map(|m| self.eval(m)).collect();
                if list.path.is_ident("not") {
                    return match values.as_slice() {
                        [Some(v)] => Some(!v),
                        _ => None,
                    };
                }
                if list.path.is_ident("all") {
                    if values.contains(&Some(false)) {
                        return Some(false);
                    }
                    return values.iter().all(Option::is_some).then_some(true);
                }
                if list.path.is_ident("any") {
                    if values.contains(&Some(true)) {
                        return Some(true);
                    }
                    return values.iter().all(Option::is_some).then_some(false);
                }
                None
            }
            _ => None,
        }
    }

    /// Whether `attrs` leave the item in: `false` only when one of its `#[cfg]`s is
    /// decided false.
    pub fn keeps(&self, attrs: &[syn::Attribute]) -> bool {
        !attrs.iter().any(|a| self.attr_value(a) == Some(false))
    }

    /// The value of one `#[cfg(..)]` attribute (`None` for other attributes).
    pub fn attr_value(&self, attr: &syn::Attribute) -> Option<bool> {
        if !attr.path().is_ident("cfg") {
            return None;
        }
        let predicate: syn::Meta = attr.parse_args().ok()?;
        self.eval(&predicate)
    }

    /// Removes the items that are compiled out, in `items`, in the inline modules, `impl`
    /// blocks and traits among them.
    pub fn strip(&self, items: &mut Vec<syn::Item>) {
        items.retain(|item| item_attrs(item).is_none_or(|attrs| self.keeps(attrs)));
        for item in items {
            match item {
                syn::Item::Mod(m) => {
                    if let Some((_, inner)) = &mut m.content {
                        self.strip(inner);
                    }
                }
                syn::Item::Impl(i) => i.items.retain(|it| match it {
                    syn::ImplItem::Fn(f) => self.keeps(&f.attrs),
                    syn::ImplItem::Const(c) => self.keeps(&c.attrs),
                    syn::ImplItem::Type(t) => self.keeps(&t.attrs),
                    syn::ImplItem::Macro(m) => self.keeps(&m.attrs),
                    _ => true,
                }),
                syn::Item::Trait(t) => t.items.retain(|it| match it {
                    syn::TraitItem::Fn(f) => self.keeps(&f.attrs),
                    _ => true,
                }),
                _ => {}
            }
        }
    }
}

fn item_attrs(item: &syn::Item) -> Option<&[syn::Attribute]> {
    Some(match item {
        syn::Item::Const(i) => &i.attrs,
        syn::Item::Enum(i) => &i.attrs,
        syn::Item::ExternCrate(i) => &i.attrs,
        syn::Item::Fn(i) => &i.attrs,
        syn::Item::ForeignMod(i) => &i.attrs,
        syn::Item::Impl(i) => &i.attrs,
        syn::Item::Macro(i) => &i.attrs,
        syn::Item::Mod(i) => &i.attrs,
        syn::Item::Static(i) => &i.attrs,
        syn::Item::Struct(i) => &i.attrs,
        syn::Item::Trait(i) => &i.attrs,
        syn::Item::TraitAlias(i) => &i.attrs,
        syn::Item::Type(i) => &i.attrs,
        syn::Item::Union(i) => &i.attrs,
        syn::Item::Use(i) => &i.attrs,
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(features: &[&str], test: bool) -> CfgSet {
        CfgSet {
            features: Some(features.iter().map(|f| f.to_string()).collect()),
            test: Some(test),
        }
    }

    fn eval(set: &CfgSet, predicate: &str) -> Option<bool> {
        set.eval(&syn::parse_str(predicate).expect("a predicate"))
    }

    #[test]
    fn features_and_test_are_decided_and_targets_are_not() {
        let set = cfg(&["std"], false);
        assert_eq!(eval(&set, r#"feature = "std""#), Some(true));
        assert_eq!(eval(&set, r#"feature = "nightly""#), Some(false));
        assert_eq!(eval(&set, "test"), Some(false));
        assert_eq!(eval(&set, "unix"), None);
        assert_eq!(eval(&set, r#"all(unix, feature = "nightly")"#), Some(false));
        assert_eq!(eval(&set, r#"any(unix, feature = "std")"#), Some(true));
        assert_eq!(eval(&set, r#"any(unix, feature = "nightly")"#), None);
        assert_eq!(eval(&set, r#"not(feature = "nightly")"#), Some(true));
        assert_eq!(eval(&CfgSet::default(), r#"feature = "std""#), None);
    }

    #[test]
    fn items_compiled_out_are_removed_at_every_level() {
        let mut file: syn::File = syn::parse_str(
            r#"#[cfg(test)] mod tests { fn t() {} }
               fn kept() {}
               mod m { #[cfg(feature = "gpu")] fn gpu() {} fn cpu() {} }
               impl S { #[cfg(test)] fn only_in_tests() {} fn always() {} }"#,
        )
        .expect("parses");
        cfg(&[], false).strip(&mut file.items);
        let text = quote::quote!(#file).to_string();
        assert!(
            !text.contains("tests") && !text.contains("gpu") && !text.contains("only_in_tests")
        );
        assert!(text.contains("kept") && text.contains("cpu") && text.contains("always"));
    }
}
