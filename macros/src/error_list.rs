//! Several compile errors reported as one `syn::Error`, so an argument list with two
//! mistakes shows both at once instead of one per rebuild.

#[derive(Default)]
pub(crate) struct ErrorList(Option<syn::Error>);

impl ErrorList {
    pub(crate) fn push(&mut self, error: syn::Error) {
        match &mut self.0 {
            Some(all) => all.combine(error),
            None => self.0 = Some(error),
        }
    }

    /// `Ok(value)` when nothing was pushed, else every pushed error, in push order.
    pub(crate) fn finish<T>(self, value: T) -> syn::Result<T> {
        match self.0 {
            Some(error) => Err(error),
            None => Ok(value),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proc_macro2::Span;

    #[test]
    fn an_empty_list_yields_the_value() {
        assert_eq!(ErrorList::default().finish(7).ok(), Some(7));
    }

    #[test]
    fn pushed_errors_come_back_in_order() {
        let mut errors = ErrorList::default();
        errors.push(syn::Error::new(Span::call_site(), "first"));
        errors.push(syn::Error::new(Span::call_site(), "second"));
        let messages: Vec<String> = match errors.finish(()) {
            Ok(()) => panic!("no errors"),
            Err(error) => error.into_iter().map(|e| e.to_string()).collect(),
        };
        assert_eq!(messages, ["first", "second"]);
    }
}
