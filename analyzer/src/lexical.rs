//! A light scan of Rust text for what the compiler does not keep: line comments (for
//! `// tensor-lint: allow(…)`), and where delimiters fail to balance (so that `--fix`
//! never writes a file it has broken).

/// A `//` comment (not a doc comment), with the byte offset of its `//` and its text
/// after the slashes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LineComment<'a> {
    pub start: usize,
    pub text: &'a str,
}

/// What went wrong with the delimiters of a file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DelimiterError {
    /// An opening delimiter at this offset is never closed.
    Unclosed { open: usize },
    /// A closing delimiter at this offset does not match the open one (if any).
    Mismatched { close: usize, open: Option<usize> },
    /// A string or block comment starting here runs to the end of the file.
    Unterminated { start: usize },
}

/// Walks `text` token-free, calling `on_comment` for each `//` comment and returning the
/// first delimiter problem, if any.
pub fn scan<'a>(
    text: &'a str,
    mut on_comment: impl FnMut(LineComment<'a>),
) -> Option<DelimiterError> {
    walk(text, |comment| {
        if let Comment::Line(c) = comment {
            on_comment(c);
        }
    })
}

enum Comment<'a> {
    Line(LineComment<'a>),
    /// A doc comment, which is no `// tensor-lint:` comment.
    Doc,
}

fn walk<'a>(text: &'a str, mut on_comment: impl FnMut(Comment<'a>)) -> Option<DelimiterError> {
    let bytes = text.as_bytes();
    let mut stack: Vec<(u8, usize)> = Vec::new();
    let mut first_error = None;
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        match b {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                let end = text[i..].find('\n').map_or(text.len(), |n| i + n);
                let body = &text[i + 2..end];
                // `///` and `//!` are doc comments, `////` a plain one.
                let doc = body.starts_with('!') || body.starts_with('/') && !body.starts_with("//");
                if doc {
                    on_comment(Comment::Doc);
                } else if !body.starts_with('/') {
                    on_comment(Comment::Line(LineComment {
                        start: i,
                        text: body,
                    }));
                }
                i = end;
                continue;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                match skip_block_comment(bytes, i) {
                    Some(end) => {
                        // `/**` and `/*!` open doc comments; `/**/` and `/***` do not.
                        let third = bytes.get(i + 2).copied();
                        let doc = third == Some(b'!')
                            || third == Some(b'*')
                                && !matches!(bytes.get(i + 3), Some(b'*' | b'/'));
                        if doc {
                            on_comment(Comment::Doc);
                        }
                        i = end;
                    }
                    None => return first_error.or(Some(DelimiterError::Unterminated { start: i })),
                }
                continue;
            }
            b'"' => {
                match skip_string(bytes, i + 1) {
                    Some(end) => i = end,
                    None => return first_error.or(Some(DelimiterError::Unterminated { start: i })),
                }
                continue;
            }
            b'r' | b'b' | b'c' if !is_ident_continue_before(bytes, i) => {
                if let Some((hashes, quote)) = raw_string_start(bytes, i) {
                    match skip_raw_string(bytes, quote + 1, hashes) {
                        Some(end) => i = end,
                        None => {
                            return first_error.or(Some(DelimiterError::Unterminated { start: i }))
                        }
                    }
                    continue;
                }
            }
            b'\'' => {
                i = skip_char_or_lifetime(bytes, i);
                continue;
            }
            b'(' | b'[' | b'{' => stack.push((b, i)),
            b')' | b']' | b'}' => {
                let want = match b {
                    b')' => b'(',
                    b']' => b'[',
                    _ => b'{',
                };
                match stack.pop() {
                    Some((open, _)) if open == want => {}
                    other => {
                        first_error.get_or_insert(DelimiterError::Mismatched {
                            close: i,
                            open: other.map(|(_, at)| at),
                        });
                    }
                }
            }
            _ => {}
        }
        i += 1;
    }
    first_error.or_else(|| {
        stack
            .first()
            .map(|&(_, open)| DelimiterError::Unclosed { open })
    })
}

fn is_ident_continue_before(bytes: &[u8], i: usize) -> bool {
    i > 0 && (bytes[i - 1].is_ascii_alphanumeric() || bytes[i - 1] == b'_')
}

/// For `r"`, `r#"`, `br"`, `cr#"`: the number of `#` and the offset of the quote.
fn raw_string_start(bytes: &[u8], i: usize) -> Option<(usize, usize)> {
    let mut j = i;
    if bytes[j] == b'b' || bytes[j] == b'c' {
        j += 1;
        if bytes.get(j) == Some(&b'"') {
            return Some((usize::MAX, j)); // a plain byte/C string: not raw
        }
    }
    if bytes.get(j) != Some(&b'r') {
        return None;
    }
    j += 1;
    let hashes_start = j;
    while bytes.get(j) == Some(&b'#') {
        j += 1;
    }
    (bytes.get(j) == Some(&b'"')).then_some((j - hashes_start, j))
}

fn skip_raw_string(bytes: &[u8], mut i: usize, hashes: usize) -> Option<usize> {
    if hashes == usize::MAX {
        return skip_string(bytes, i);
    }
    while i < bytes.len() {
        if bytes[i] == b'"'
            && bytes[i + 1..]
                .iter()
                .take(hashes)
                .filter(|&&b| b == b'#')
                .count()
                == hashes
        {
            return Some(i + 1 + hashes);
        }
        i += 1;
    }
    None
}

fn skip_string(bytes: &[u8], mut i: usize) -> Option<usize> {
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

fn skip_block_comment(bytes: &[u8], mut i: usize) -> Option<usize> {
    let mut depth = 0usize;
    while i + 1 < bytes.len() {
        match (bytes[i], bytes[i + 1]) {
            (b'/', b'*') => {
                depth += 1;
                i += 2;
            }
            (b'*', b'/') => {
                depth -= 1;
                i += 2;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => i += 1,
        }
    }
    None
}

/// `'a'`, `'\n'`, `'\u{1F600}'` are characters; `'a` in `&'a T` is a lifetime.
fn skip_char_or_lifetime(bytes: &[u8], i: usize) -> usize {
    match bytes.get(i + 1) {
        Some(b'\\') => {
            // Past the backslash and the escaped character (`'\''`, `'\\'`).
            let mut j = i + 3;
            while j < bytes.len() && bytes[j] != b'\'' && bytes[j] != b'\n' {
                j += 1;
            }
            j + 1
        }
        Some(_) => {
            // One character (maybe multi-byte) followed by a quote is a char literal.
            let rest = &bytes[i + 1..];
            let len = std::str::from_utf8(&rest[..rest.len().min(4)])
                .ok()
                .or_else(|| {
                    (1..4)
                        .rev()
                        .find_map(|n| std::str::from_utf8(&rest[..n.min(rest.len())]).ok())
                })
                .and_then(|s| s.chars().next())
                .map_or(1, char::len_utf8);
            if rest.get(len) == Some(&b'\'') {
                i + 1 + len + 1
            } else {
                i + 1
            }
        }
        None => i + 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaped_quotes_in_chars_do_not_start_a_comment() {
        let text = "const Q: [char; 3] = ['\\'','\"', '\\\\'];\nconst S: &str = \"]// x\";\n// y\nfn f() {}\n";
        assert_eq!(
            comments(text),
            [(text.find("// y").unwrap(), " y".to_string())]
        );
        assert_eq!(scan(text, |_| {}), None);
    }

    fn comments(text: &str) -> Vec<(usize, String)> {
        let mut out = Vec::new();
        scan(text, |c| out.push((c.start, c.text.to_string())));
        out
    }

    #[test]
    fn finds_line_comments_but_not_inside_strings_or_doc_comments() {
        let text = "let s = \"// no\"; // yes\n/// doc\n//! inner\nlet r = r#\"// no\"#; //two\n";
        assert_eq!(
            comments(text),
            [(17, " yes".to_string()), (62, "two".to_string())]
        );
    }

    #[test]
    fn lifetimes_and_chars_do_not_confuse_the_scan() {
        let text = "fn f<'a>(x: &'a str) -> char { let c = '}'; let q = '\\''; '\"' }\n";
        assert_eq!(scan(text, |_| {}), None);
    }

    #[test]
    fn reports_the_unclosed_delimiter() {
        assert_eq!(
            scan("fn main() {\n  let a = (1;\n}", |_| {}),
            Some(DelimiterError::Mismatched {
                close: 26,
                open: Some(22)
            })
        );
        assert_eq!(
            scan("fn main() {\n", |_| {}),
            Some(DelimiterError::Unclosed { open: 10 })
        );
        assert_eq!(
            scan("let s = \"abc;\n", |_| {}),
            Some(DelimiterError::Unterminated { start: 8 })
        );
    }
}
