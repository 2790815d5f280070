//! Writing generated items as `prettyplease` formats them, each on its own
//! at the depth of its module, and an item with a list (variants, arms,
//! fields, methods) a batch of entries at a time, so that the memory of
//! writing a file does not grow with the length of any list in it.

use std::io::Write;

use proc_macro2::TokenStream;
use quote::quote;

/// One item of generated code: `frame` around a list of `len` entries,
/// entry `i` being `entry(i)`.
pub(super) struct ListItem<'a> {
    /// A one-line entry of the list's kind, standing for the list when the
    /// frame is formatted on its own.
    pub(super) marker: &'static str,
    pub(super) len: usize,
    pub(super) entry: Box<dyn Fn(usize) -> TokenStream + 'a>,
    pub(super) frame: Box<dyn Fn(TokenStream) -> TokenStream + 'a>,
}

/// A module: `frame`, with [`ITEM_MARKER`] standing for its `items`, each
/// formatted (and written) on its own.
pub(super) struct ModuleItem<'a> {
    pub(super) frame: TokenStream,
    pub(super) items: Vec<ListItem<'a>>,
}

/// An item standing for a module's items (see [`ModuleItem`]), as it
/// formats.
pub(super) const ITEM_MARKER: &str = "fn rebound_codegen_items() {}";
/// A variant standing for a list of variants (see [`ListItem::marker`]).
pub(super) const VARIANT_MARKER: &str = "ReboundCodegenEntries,";
/// A match arm standing for a list of arms.
pub(super) const ARM_MARKER: &str = "rebound_codegen_entries => {}";
/// A field standing for a list of fields (see [`ListItem::marker`]).
pub(super) const FIELD_MARKER: &str = "pub rebound_codegen_entries: (),";
/// A method standing for a list of methods.
pub(super) const METHOD_MARKER: &str = "fn rebound_codegen_entries() {}";

/// What can stop [`Emitter::write_to`](super::Emitter::write_to).
#[derive(Debug)]
pub(crate) enum EmitError {
    /// The generated code does not parse or format as expected: a bug.
    Internal(String),
    /// The output could not be written.
    Write(std::io::Error),
}

impl From<String> for EmitError {
    fn from(message: String) -> Self {
        Self::Internal(message)
    }
}

/// Appends `text` to `out`.
pub(super) fn push_str(out: &mut dyn Write, text: &str) -> Result<(), EmitError> {
    out.write_all(text.as_bytes()).map_err(EmitError::Write)
}

/// Appends `tokens` (whole items) to `out` as `prettyplease` formats them
/// `depth` modules deep (see [`format_items`]).
pub(super) fn push_items(
    out: &mut dyn Write,
    depth: usize,
    tokens: TokenStream,
) -> Result<(), EmitError> {
    push_str(out, &format_items(depth, tokens)?)
}

/// `tokens` (whole items) as `prettyplease` formats them `depth` modules
/// deep (its line breaks depend on the indentation): formatted inside that
/// many wrapping modules, whose own lines are then left out.
fn format_items(depth: usize, tokens: TokenStream) -> Result<String, String> {
    if tokens.is_empty() {
        return Ok(String::new());
    }
    let mut tokens = tokens;
    for _ in 0..depth {
        tokens = quote!(mod m { #tokens });
    }
    let file: syn::File =
        syn::parse2(tokens).map_err(|e| format!("the generated code does not parse: {e}"))?;
    let text = prettyplease::unparse(&file);
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let wrapped = lines.len() > 2 * depth
        && lines[..depth].iter().all(|l| l.trim() == "mod m {")
        && lines[lines.len() - depth..].iter().all(|l| l.trim() == "}");
    if !wrapped {
        return Err("the generated code formats in an unexpected layout".to_owned());
    }
    Ok(lines[depth..lines.len() - depth].concat())
}

/// How many entries of a list [`push_list`] formats at a time.
const BATCH: usize = 256;

/// Appends `module` `depth` modules deep, as [`push_items`] would format it
/// whole, but each of its items on its own: the frame is formatted with
/// [`ITEM_MARKER`] standing for the items, which
/// gives the text before and after them; each item is written in between
/// by [`push_list_item`], one level deeper.
pub(super) fn push_module(
    out: &mut dyn Write,
    depth: usize,
    module: &ModuleItem<'_>,
) -> Result<(), EmitError> {
    let (before, after) = split_at_marker(depth, module.frame.clone(), ITEM_MARKER)?;
    push_str(out, &before)?;
    for item in &module.items {
        push_list_item(out, depth + 1, item)?;
    }
    push_str(out, &after)
}

/// Appends `item` (a frame around a list of entries) `depth` modules deep,
/// a batch of entries at a time ([`push_list`]).
pub(super) fn push_list_item(
    out: &mut dyn Write,
    depth: usize,
    item: &ListItem<'_>,
) -> Result<(), EmitError> {
    let entries = (0..item.len).map(&item.entry);
    push_list(out, depth, &item.frame, item.marker, entries)
}

/// `tokens` formatted `depth` modules deep ([`format_items`]), cut at the
/// line that is `marker` alone: the text before it and after it.
fn split_at_marker(
    depth: usize,
    tokens: TokenStream,
    marker: &str,
) -> Result<(String, String), EmitError> {
    let framed = format_items(depth, tokens)?;
    let lines: Vec<&str> = framed.split_inclusive('\n').collect();
    let mut at = (0..lines.len()).filter(|&i| lines[i].trim() == marker);
    let (Some(at), None) = (at.next(), at.next()) else {
        return Err(EmitError::Internal(
            "the marker of a list of entries is not on one line of its own".to_owned(),
        ));
    };
    Ok((lines[..at].concat(), lines[at + 1..].concat()))
}

/// Appends the item that `item` makes around a list of `entries` (enum
/// variants, match arms, struct fields, methods), `depth` modules deep, as
/// [`push_items`] would format it whole, but a batch of entries at a time,
/// so that a list of any length needs little memory. `prettyplease` writes
/// each such entry on lines of its own whatever the others: the item is formatted once with
/// `marker` as its only entry, which gives the text before and after the
/// list; then once per batch, of which the lines in between are kept (the
/// text around them checked to be the same).
fn push_list(
    out: &mut dyn Write,
    depth: usize,
    item: impl Fn(TokenStream) -> TokenStream,
    marker: &str,
    entries: impl Iterator<Item = TokenStream>,
) -> Result<(), EmitError> {
    let mut entries = entries.peekable();
    let mut batch: TokenStream = entries.by_ref().take(BATCH).collect();
    if entries.peek().is_none() {
        return push_items(out, depth, item(batch));
    }
    let marker_tokens = marker.parse().map_err(|e| format!("{e}"))?;
    let (before, after) = split_at_marker(depth, item(marker_tokens), marker)?;
    push_str(out, &before)?;
    loop {
        if !batch.is_empty() {
            let text = format_items(depth, item(batch))?;
            let between = text
                .strip_prefix(before.as_str())
                .and_then(|text| text.strip_suffix(after.as_str()))
                .ok_or_else(|| {
                    EmitError::Internal(
                        "a batch of entries formats with different text around it".to_owned(),
                    )
                })?;
            push_str(out, between)?;
        }
        if entries.peek().is_none() {
            break;
        }
        batch = entries.by_ref().take(BATCH).collect();
    }
    push_str(out, &after)
}

/// `tokens` (whole items) as a list item without entries.
pub(super) fn whole<'a>(tokens: TokenStream) -> ListItem<'a> {
    ListItem {
        marker: "",
        len: 0,
        entry: Box::new(|_| TokenStream::new()),
        frame: Box::new(move |_| tokens.clone()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emit::ident;

    #[test]
    fn items_format_as_they_would_inside_their_modules() {
        let item = quote! {
            /// A struct with a field whose type is long enough to be broken over lines.
            pub struct Deep {
                pub field: ::std::option::Option<::std::collections::HashMap<::std::string::String, ::std::vec::Vec<u8>>>,
            }
        };
        let whole: syn::File =
            syn::parse2(quote!(pub mod a { pub mod b { #item } })).expect("parses");
        let whole = prettyplease::unparse(&whole);
        let mut out = Vec::new();
        push_items(&mut out, 2, item).expect("formats");
        let out = String::from_utf8(out).expect("UTF-8");
        let lines: Vec<&str> = whole.lines().collect();
        let inner = lines[2..lines.len() - 2].join("\n");
        assert_eq!(out, format!("{inner}\n"));
        assert!(out.starts_with("        /// A struct"), "{out}");
    }

    #[test]
    fn long_lists_format_in_batches_as_they_would_whole() {
        // Variants and arms of every length, some broken over lines.
        let n = 3 * BATCH + 7;
        let name = |i: usize| ident(&format!("V{}{}", i, "x".repeat(i % 90)));
        let variants = || {
            (0..n).map(move |i| {
                let (v, doc) = (name(i), format!(" Variant {i}."));
                quote!(#[doc = #doc] #v(::std::option::Option<::std::vec::Vec<u8>>),)
            })
        };
        let arms = || {
            (0..n).map(move |i| {
                let (v, code) = (name(i), format!("code-{i}"));
                if i % 2 == 0 {
                    quote!(#code => Self::#v(::std::option::Option::None),)
                } else {
                    quote!(#code => Self::#v(::std::option::Option::Some(::std::vec::Vec::from(#code))),)
                }
            })
        };
        let enum_item = |variants: TokenStream| quote!(pub enum E { #variants Last });
        let impl_item = |arms: TokenStream| {
            quote! {
                impl E {
                    pub fn new(code: &str) -> Self {
                        match code {
                            #arms
                            _ => Self::Last,
                        }
                    }
                }
            }
        };
        let (mut whole, mut batched) = (Vec::new(), Vec::new());
        push_items(&mut whole, 0, enum_item(variants().collect())).expect("formats");
        push_items(&mut whole, 0, impl_item(arms().collect())).expect("formats");
        push_list(&mut batched, 0, enum_item, VARIANT_MARKER, variants()).expect("formats");
        push_list(&mut batched, 0, impl_item, ARM_MARKER, arms()).expect("formats");
        let (whole, batched) = (
            String::from_utf8(whole).expect("UTF-8"),
            String::from_utf8(batched).expect("UTF-8"),
        );
        assert_eq!(batched, whole);
        // Some arms are on one line, some broken over several.
        assert!(whole.contains("\"code-0\" => Self::V0(::std::option::Option::None),\n"));
        assert!(whole.contains("\"code-1\" => {\n"), "{whole}");
    }

    #[test]
    fn long_structs_and_impls_format_in_batches_as_they_would_whole() {
        // Fields and methods of every length, some broken over lines, two
        // modules deep as in `types::error`.
        let n = 2 * BATCH + 3;
        let name = |i: usize| ident(&format!("f{}{}", i, "x".repeat(i % 90)));
        let fields = || {
            (0..n).map(move |i| {
                let (f, doc) = (name(i), format!(" Field {i}."));
                quote!(#[doc = #doc] pub #f: ::std::option::Option<::std::collections::HashMap<::std::string::String, ::std::vec::Vec<u8>>>,)
            })
        };
        let methods = || {
            (0..n).map(move |i| {
                let f = name(i);
                quote! {
                    #[must_use]
                    pub fn #f(&self) -> ::std::option::Option<&::std::collections::HashMap<::std::string::String, ::std::vec::Vec<u8>>> {
                        self.#f.as_ref()
                    }
                }
            })
        };
        let struct_item =
            |fields: TokenStream| quote!(pub struct S { #fields pub(crate) meta: u8, });
        let impl_item = |methods: TokenStream| quote!(impl S { #methods pub fn last(&self) {} });
        let (mut whole, mut batched) = (Vec::new(), Vec::new());
        push_items(&mut whole, 2, struct_item(fields().collect())).expect("formats");
        push_items(&mut whole, 2, impl_item(methods().collect())).expect("formats");
        push_list(&mut batched, 2, struct_item, FIELD_MARKER, fields()).expect("formats");
        push_list(&mut batched, 2, impl_item, METHOD_MARKER, methods()).expect("formats");
        let (whole, batched) = (
            String::from_utf8(whole).expect("UTF-8"),
            String::from_utf8(batched).expect("UTF-8"),
        );
        assert_eq!(batched, whole);
        assert!(whole.starts_with("        pub struct S {\n"), "{whole}");
    }

    #[test]
    fn tokens_that_do_not_parse_are_an_error_not_a_panic() {
        let mut out = Vec::new();
        let err = push_items(&mut out, 1, quote!(pub struct ;)).expect_err("not an item");
        assert!(
            matches!(&err, EmitError::Internal(m) if m.starts_with("the generated code does not parse: ")),
            "{err:?}"
        );
        assert!(out.is_empty());
    }
}
