//! `types::*`: the structures, unions and enums that error members use.

use std::collections::HashSet;
use std::hash::Hash;

use proc_macro2::{Ident, Literal, TokenStream};
use quote::quote;

use super::batch::{ListItem, whole};
use super::{Emitter, Here, code, deprecated, doc_attrs, ident, member_docs};
use crate::ast::{Member, Shape, ShapeType};
use crate::names::{fresh, unraw, variant_name};

impl Emitter<'_, '_> {
    /// `#[derive(Debug)]`, or an `impl Debug` for a union with a
    /// `@sensitive` member, whose value it prints redacted.
    fn union_debug(
        &self,
        shape: &Shape,
        name: &Ident,
        variants: &[(&Member, Ident, TokenStream)],
        unknown: &Ident,
    ) -> (TokenStream, TokenStream) {
        if !shape.members.iter().any(|m| self.is_sensitive(shape, m)) {
            return (quote!(::std::fmt::Debug,), TokenStream::new());
        }
        let arms = variants.iter().map(|(member, variant, _)| {
            let label = format!(
                "{}::{}",
                unraw(&name.to_string()),
                unraw(&variant.to_string())
            );
            if &*member.target == "smithy.api#Unit" {
                quote!(Self::#variant => f.write_str(#label),)
            } else if self.is_sensitive(shape, member) {
                quote!(Self::#variant(_) => f.debug_tuple(#label).field(&REDACTED).finish(),)
            } else {
                quote!(Self::#variant(value) => f.debug_tuple(#label).field(value).finish(),)
            }
        });
        let unknown_label = format!(
            "{}::{}",
            unraw(&name.to_string()),
            unraw(&unknown.to_string())
        );
        let body = quote! {
            impl ::std::fmt::Debug for #name {
                /// The member, a `@sensitive` one's value redacted.
                fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                    /// Printed in place of a sensitive value.
                    const REDACTED: &str = "*** Sensitive Data Redacted ***";
                    match self {
                        #(#arms)*
                        Self::#unknown => f.write_str(#unknown_label),
                    }
                }
            }
        };
        (TokenStream::new(), body)
    }

    /// The items of `types`: those of each member type, a structure's
    /// fields a batch at a time.
    pub(super) fn member_types(&self) -> impl Iterator<Item = Vec<ListItem<'_>>> {
        self.view.types.iter().map(|&shape| {
            let name = ident(self.view.rust_name(shape));
            let tokens = if self.view.is_enum_string(&shape.id) {
                self.string_enum(shape, &name, legacy_enum_values(shape))
            } else {
                match shape.shape_type {
                    ShapeType::Structure => return self.structure(shape, name),
                    ShapeType::Union => self.union(shape, &name),
                    ShapeType::Enum => self.string_enum(shape, &name, enum_values(shape)),
                    ShapeType::IntEnum => self.int_enum(shape, &name),
                    _ => TokenStream::new(),
                }
            };
            vec![whole(tokens)]
        })
    }

    /// A structure, its fields as list entries, then its `Default` and
    /// `Debug` impls when it has its own.
    fn structure<'a>(&'a self, shape: &'a Shape, name: Ident) -> Vec<ListItem<'a>> {
        let docs = self.docs(shape, format!("The {} structure.", code(shape.name())));
        let (derive_default, default_impl) = self.default_impl(shape, &name, Here::Types);
        let (derive_debug, debug_impl) = self.debug_impl(shape, &name);
        let deprecated = deprecated(shape);
        let head = quote! {
            #docs
            #[derive(#derive_debug ::std::clone::Clone, ::std::cmp::PartialEq, #derive_default)]
            #[non_exhaustive]
            #deprecated
        };
        let names = std::rc::Rc::new(self.field_names(shape));
        let fields = self.field_entries(shape, names, Here::Types, |_| TokenStream::new());
        vec![
            self.struct_item(shape, head, name, fields),
            whole(quote!(#default_impl #debug_impl)),
        ]
    }

    fn union(&self, shape: &Shape, name: &proc_macro2::Ident) -> TokenStream {
        let docs = self.docs(shape, format!("The {} union.", code(shape.name())));
        let mut taken: HashSet<String> = HashSet::new();
        let variants: Vec<(&Member, Ident, TokenStream)> = shape
            .members
            .iter()
            .map(|member| {
                let variant = fresh(&variant_name(&member.name), |n| taken.contains(n));
                taken.insert(variant.clone());
                let variant = ident(&variant);
                let docs = member_docs(member);
                if &*member.target == "smithy.api#Unit" {
                    (member, variant.clone(), quote!(#docs #variant,))
                } else {
                    let mut ty = self.type_of(&member.target, Here::Types);
                    if self.view.is_boxed(shape, &member.name) {
                        ty = quote!(::std::boxed::Box<#ty>);
                    }
                    (member, variant.clone(), quote!(#docs #variant(#ty),))
                }
            })
            .collect();
        let variant_tokens = variants.iter().map(|(_, _, tokens)| tokens);
        let unknown = ident(&fresh("Unknown", |n| taken.contains(n)));
        let (derive_debug, debug_impl) = self.union_debug(shape, name, &variants, &unknown);
        let deprecated = deprecated(shape);
        quote! {
            #debug_impl

            #docs
            #[derive(#derive_debug ::std::clone::Clone, ::std::cmp::PartialEq, ::std::default::Default)]
            #[non_exhaustive]
            #deprecated
            pub enum #name {
                #(#variant_tokens)*
                /// A member this version of the model does not know (the default).
                #[default]
                #unknown,
            }
        }
    }

    fn string_enum(
        &self,
        shape: &Shape,
        name: &proc_macro2::Ident,
        values: Vec<(String, String)>,
    ) -> TokenStream {
        let docs = self.docs(shape, format!("The {} enum.", code(shape.name())));
        let deprecated = deprecated(shape);
        let (variants, values) = unique_variants(values);
        let unknown = ident(&fresh("Unknown", |n| variants.iter().any(|t| t == n)));
        let idents: Vec<_> = variants.iter().map(|v| ident(v)).collect();
        let docs_of = values
            .iter()
            .map(|v| doc_attrs(Some(&format!("The value {}.", code(v))), String::new()));
        quote! {
            #docs
            #[derive(::std::fmt::Debug, ::std::clone::Clone, ::std::cmp::PartialEq, ::std::cmp::Eq, ::std::hash::Hash)]
            #[non_exhaustive]
            #deprecated
            pub enum #name {
                #(#docs_of #idents,)*
                /// A value this version of the model does not know.
                #unknown(::std::string::String),
            }

            impl #name {
                /// The value on the wire.
                #[must_use]
                pub fn as_str(&self) -> &str {
                    match self {
                        #(Self::#idents => #values,)*
                        Self::#unknown(value) => value,
                    }
                }
            }

            impl ::std::convert::From<&str> for #name {
                fn from(value: &str) -> Self {
                    match value {
                        #(#values => Self::#idents,)*
                        other => Self::#unknown(::std::borrow::ToOwned::to_owned(other)),
                    }
                }
            }

            impl ::std::default::Default for #name {
                /// The value of an empty string.
                fn default() -> Self {
                    Self::from("")
                }
            }

            impl ::std::fmt::Display for #name {
                fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                    f.write_str(self.as_str())
                }
            }
        }
    }

    fn int_enum(&self, shape: &Shape, name: &proc_macro2::Ident) -> TokenStream {
        let docs = self.docs(shape, format!("The {} enum.", code(shape.name())));
        let deprecated = deprecated(shape);
        // Smithy's intEnum values are 32-bit; a value outside that range
        // cannot be sent, so it gets no variant.
        let values: Vec<(String, i32)> = shape
            .members
            .iter()
            .filter_map(|m| {
                let value = m.traits.get("smithy.api#enumValue")?.as_i64()?;
                Some((m.name.clone(), i32::try_from(value).ok()?))
            })
            .collect();
        let (variants, values) = unique_variants(values);
        let unknown = ident(&fresh("Unknown", |n| variants.iter().any(|t| t == n)));
        let idents: Vec<_> = variants.iter().map(|v| ident(v)).collect();
        let literals: Vec<TokenStream> = values
            .iter()
            .map(|&v| {
                let abs = Literal::u32_unsuffixed(v.unsigned_abs());
                if v < 0 { quote!(-#abs) } else { quote!(#abs) }
            })
            .collect();
        let docs_of = values.iter().map(|v| {
            doc_attrs(
                Some(&format!("The value {}.", code(&v.to_string()))),
                String::new(),
            )
        });
        quote! {
            #docs
            #[derive(::std::fmt::Debug, ::std::clone::Clone, ::std::marker::Copy, ::std::cmp::PartialEq, ::std::cmp::Eq, ::std::hash::Hash)]
            #[non_exhaustive]
            #deprecated
            pub enum #name {
                #(#docs_of #idents,)*
                /// A value this version of the model does not know.
                #unknown(i32),
            }

            impl #name {
                /// The value on the wire.
                #[must_use]
                pub fn value(&self) -> i32 {
                    match self {
                        #(Self::#idents => #literals,)*
                        Self::#unknown(value) => *value,
                    }
                }
            }

            impl ::std::convert::From<i32> for #name {
                fn from(value: i32) -> Self {
                    match value {
                        #(#literals => Self::#idents,)*
                        other => Self::#unknown(other),
                    }
                }
            }

            impl ::std::default::Default for #name {
                /// The value of a zero.
                fn default() -> Self {
                    Self::from(0)
                }
            }
        }
    }
}

/// Variant names (unique) and values (the first of equal ones kept), in
/// model order.
fn unique_variants<V: Eq + Hash + Clone>(members: Vec<(String, V)>) -> (Vec<String>, Vec<V>) {
    let (mut variants, mut values): (Vec<String>, Vec<V>) = (Vec::new(), Vec::new());
    let (mut seen_values, mut taken): (HashSet<V>, HashSet<String>) = Default::default();
    for (name, value) in members {
        if !seen_values.insert(value.clone()) {
            continue;
        }
        let variant = fresh(&variant_name(&name), |n| taken.contains(unraw(n)));
        taken.insert(unraw(&variant).to_owned());
        variants.push(variant);
        values.push(value);
    }
    (variants, values)
}

/// A 2.0 `enum`'s members and values (`@enumValue`, else the member name).
fn enum_values(shape: &Shape) -> Vec<(String, String)> {
    shape
        .members
        .iter()
        .map(|m| {
            let value = m
                .traits
                .get("smithy.api#enumValue")
                .and_then(|v| v.as_str())
                .unwrap_or(&m.name);
            (m.name.clone(), value.to_owned())
        })
        .collect()
}

/// A 1.0 string's `@enum` trait: names (else the values) and values.
fn legacy_enum_values(shape: &Shape) -> Vec<(String, String)> {
    let Some(list) = shape
        .traits
        .get("smithy.api#enum")
        .and_then(|e| e.as_array())
    else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|entry| {
            let value = entry.get("value")?.as_str()?;
            let name = entry.get("name").and_then(|n| n.as_str()).unwrap_or(value);
            Some((name.to_owned(), value.to_owned()))
        })
        .collect()
}
