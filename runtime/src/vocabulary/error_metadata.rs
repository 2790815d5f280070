//! [`ErrorMetadata`]: what a response said about an error besides its
//! modeled members, and [`ProvideErrorMetadata`], the trait of errors that
//! carry it.

use std::collections::BTreeMap;

/// What a response said about an error: its code, message, request ID,
/// HTTP status, and any other protocol field (extras).
///
/// Generated error types (`rebound-codegen`) carry one; build it with the
/// `with_*` methods.
///
/// # Examples
///
/// ```
/// use rebound_runtime::ErrorMetadata;
///
/// let meta = ErrorMetadata::new()
///     .with_code("ThrottlingException")
///     .with_message("Rate exceeded")
///     .with_request_id("5f1c-42")
///     .with_http_status(400)
///     .with_extra("host_id", "abc");
/// assert_eq!(meta.code(), Some("ThrottlingException"));
/// assert_eq!(meta.request_id(), Some("5f1c-42"));
/// assert_eq!(meta.http_status(), Some(400));
/// assert_eq!(meta.extra("host_id"), Some("abc"));
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct ErrorMetadata {
    code: Option<String>,
    message: Option<String>,
    request_id: Option<String>,
    http_status: Option<u16>,
    extras: BTreeMap<String, String>,
}

impl ErrorMetadata {
    /// Metadata with nothing known.
    #[must_use]
    pub const fn new() -> Self {
        Self {
            code: None,
            message: None,
            request_id: None,
            http_status: None,
            extras: BTreeMap::new(),
        }
    }

    /// With this error code.
    #[must_use]
    pub fn with_code(mut self, code: impl Into<String>) -> Self {
        self.code = Some(code.into());
        self
    }

    /// With this error message.
    #[must_use]
    pub fn with_message(mut self, message: impl Into<String>) -> Self {
        self.message = Some(message.into());
        self
    }

    /// With this request ID (`x-amzn-requestid`, `x-amz-request-id`, ...).
    #[must_use]
    pub fn with_request_id(mut self, request_id: impl Into<String>) -> Self {
        self.request_id = Some(request_id.into());
        self
    }

    /// With the HTTP status of the response.
    #[must_use]
    pub const fn with_http_status(mut self, status: u16) -> Self {
        self.http_status = Some(status);
        self
    }

    /// With one more protocol field (`key` replaces an earlier value).
    #[must_use]
    pub fn with_extra(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.extras.insert(key.into(), value.into());
        self
    }

    /// Moves the message out (a generated error keeps it in its message
    /// member instead).
    pub fn take_message(&mut self) -> Option<String> {
        self.message.take()
    }

    /// The error code, as received.
    #[must_use]
    pub fn code(&self) -> Option<&str> {
        self.code.as_deref()
    }

    /// The error message.
    #[must_use]
    pub fn message(&self) -> Option<&str> {
        self.message.as_deref()
    }

    /// The request ID.
    #[must_use]
    pub fn request_id(&self) -> Option<&str> {
        self.request_id.as_deref()
    }

    /// The HTTP status of the response.
    #[must_use]
    pub const fn http_status(&self) -> Option<u16> {
        self.http_status
    }

    /// The extra field `key`.
    #[must_use]
    pub fn extra(&self, key: &str) -> Option<&str> {
        self.extras.get(key).map(String::as_str)
    }

    /// Every extra field, by key.
    pub fn extras(&self) -> impl Iterator<Item = (&str, &str)> {
        self.extras.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }
}

/// An error that carries the [`ErrorMetadata`] of the response it came in
/// (the generated errors of `rebound-codegen` do).
///
/// # Examples
///
/// ```
/// use rebound_runtime::{ErrorMetadata, ProvideErrorMetadata};
///
/// #[derive(Debug)]
/// struct ServiceError {
///     meta: ErrorMetadata,
/// }
///
/// impl ProvideErrorMetadata for ServiceError {
///     fn meta(&self) -> &ErrorMetadata {
///         &self.meta
///     }
/// }
///
/// let err = ServiceError { meta: ErrorMetadata::new().with_request_id("r-1") };
/// assert_eq!(err.request_id(), Some("r-1"));
/// assert_eq!(err.code(), None);
/// ```
pub trait ProvideErrorMetadata {
    /// The metadata.
    fn meta(&self) -> &ErrorMetadata;

    /// The error code, as received.
    fn code(&self) -> Option<&str> {
        self.meta().code()
    }

    /// The error message.
    fn message(&self) -> Option<&str> {
        self.meta().message()
    }

    /// The request ID.
    fn request_id(&self) -> Option<&str> {
        self.meta().request_id()
    }
}

impl ProvideErrorMetadata for ErrorMetadata {
    fn meta(&self) -> &ErrorMetadata {
        self
    }
}
