//! The derive input as a typed tree: the type, its variants (a struct is one
//! variant) and their fields, each with its parsed helper attributes.

use darling::error::Accumulator;
use syn::{Data, DeriveInput, Fields, Generics, Ident, Member, Type};

use crate::attr::Attrs;

/// A type `#[derive(RetryInfo)]` was applied to.
pub(crate) struct Input<'a> {
    pub(crate) ident: &'a Ident,
    pub(crate) generics: &'a Generics,
    pub(crate) attrs: Attrs,
    pub(crate) shape: Shape<'a>,
}

/// Struct or enum. A struct is classified like a single variant whose
/// attributes are the struct's own.
pub(crate) enum Shape<'a> {
    Struct(Variant<'a>),
    Enum(Vec<Variant<'a>>),
}

/// One way the error can be: an enum variant, or a whole struct.
pub(crate) struct Variant<'a> {
    pub(crate) ident: &'a Ident,
    /// Empty for a struct: its attributes are [`Input::attrs`].
    pub(crate) attrs: Attrs,
    pub(crate) fields: Vec<Field<'a>>,
}

/// A field of a variant or struct.
pub(crate) struct Field<'a> {
    pub(crate) member: Member,
    pub(crate) ty: &'a Type,
    pub(crate) attrs: Attrs,
}

impl<'a> Input<'a> {
    /// Builds the tree; `None` only for input the derive cannot handle at
    /// all (a union), which has been reported into `errors`.
    pub(crate) fn from_syn(node: &'a DeriveInput, errors: &mut Accumulator) -> Option<Self> {
        let attrs = Attrs::parse(&node.attrs, errors);
        let shape = match &node.data {
            Data::Struct(data) => Shape::Struct(Variant {
                ident: &node.ident,
                attrs: Attrs::default(),
                fields: Field::from_syn_all(&data.fields, errors),
            }),
            Data::Enum(data) => Shape::Enum(
                data.variants
                    .iter()
                    .map(|variant| Variant {
                        ident: &variant.ident,
                        attrs: Attrs::parse(&variant.attrs, errors),
                        fields: Field::from_syn_all(&variant.fields, errors),
                    })
                    .collect(),
            ),
            Data::Union(data) => {
                errors.push(
                    darling::Error::custom(
                        "#[derive(RetryInfo)] supports structs and enums, not unions: \
                         a union cannot tell which of its fields holds the error",
                    )
                    .with_span(&data.union_token),
                );
                return None;
            }
        };
        Some(Self {
            ident: &node.ident,
            generics: &node.generics,
            attrs,
            shape,
        })
    }

    /// Every variant (one for a struct).
    pub(crate) fn variants(&self) -> &[Variant<'a>] {
        match &self.shape {
            Shape::Struct(variant) => std::slice::from_ref(variant),
            Shape::Enum(variants) => variants,
        }
    }

    /// The attributes that classify `variant`: for a struct, the struct's
    /// own; for an enum variant, the variant's.
    pub(crate) fn own_attrs<'v>(&'v self, variant: &'v Variant<'a>) -> &'v Attrs {
        match self.shape {
            Shape::Struct(_) => &self.attrs,
            Shape::Enum(_) => &variant.attrs,
        }
    }

    /// Whether `variant` delegates everything to its single field.
    pub(crate) fn is_transparent(&self, variant: &Variant<'a>) -> bool {
        self.attrs.transparent.is_some() || variant.attrs.transparent.is_some()
    }
}

impl<'a> Field<'a> {
    fn from_syn_all(fields: &'a Fields, errors: &mut Accumulator) -> Vec<Self> {
        fields
            .iter()
            .enumerate()
            .map(|(index, field)| Field {
                member: match &field.ident {
                    Some(ident) => Member::Named(ident.clone()),
                    None => Member::Unnamed(index.into()),
                },
                ty: &field.ty,
                attrs: Attrs::parse(&field.attrs, errors),
            })
            .collect()
    }
}
