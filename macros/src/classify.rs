//! The Smithy mapping from declared traits to the retry vocabulary, in one
//! place (ARCHITECTURE.md's table):
//!
//! | declared | retry_safety | is_throttle | fault |
//! |---|---|---|---|
//! | `#[retryable(throttling = true)]` | Yes | true | as declared, else from the status |
//! | `#[retryable]` | Yes | false | as declared, else from the status |
//! | `#[retryable(false)]` | No | false | as declared, else from the status |
//! | `#[error_fault(client)]`, not retryable | No | false | Client |
//! | `#[error_fault(server)]`, not retryable | Maybe | false | Server |
//! | nothing | Maybe | false | from `#[http_error]` (4xx Client, 5xx Server), else Other |
//!
//! The HTTP status is the declared one, else Smithy's `@httpError` default
//! for the declared fault (400 client, 500 server), else unknown.

use darling::util::SpannedValue;

use crate::attr::{Attrs, Fault, Retryable};

/// `RetrySafety`, as the macro sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Safety {
    Yes,
    No,
    Maybe,
}

/// Everything a non-transparent variant answers, known at compile time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Classification {
    pub(crate) safety: Safety,
    pub(crate) throttle: bool,
    pub(crate) timeout: bool,
    pub(crate) fault: Fault,
    pub(crate) status: Option<u16>,
}

/// The attributes in force for one variant: its own, else the enum's defaults.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Declared<'a> {
    pub(crate) retryable: Option<&'a SpannedValue<Retryable>>,
    pub(crate) fault: Option<&'a SpannedValue<Fault>>,
    pub(crate) status: Option<&'a SpannedValue<u16>>,
}

impl<'a> Declared<'a> {
    /// Merges a variant's attributes over the enum's (`defaults` is `None`
    /// for a struct, whose attributes are all its own).
    pub(crate) fn merge(own: &'a Attrs, defaults: Option<&'a Attrs>) -> Self {
        Self {
            retryable: own
                .retryable
                .as_ref()
                .or_else(|| defaults.and_then(|a| a.retryable.as_ref())),
            fault: own
                .fault
                .as_ref()
                .or_else(|| defaults.and_then(|a| a.fault.as_ref())),
            status: own
                .http_error
                .as_ref()
                .or_else(|| defaults.and_then(|a| a.http_error.as_ref())),
        }
    }

    /// Applies the mapping table.
    pub(crate) fn classify(&self) -> Classification {
        let declared_fault = self.fault.map(|f| **f);
        let declared_status = self.status.map(|s| **s);
        let retryable = self.retryable.map(|r| **r);
        let (throttle, timeout) = match retryable {
            Some(Retryable::Yes {
                throttling,
                timeout,
            }) => (throttling, timeout),
            Some(Retryable::No) | None => (false, false),
        };
        let safety = match (retryable, declared_fault) {
            (Some(Retryable::Yes { .. }), _) => Safety::Yes,
            // An explicit "never retry this", whatever its fault or status.
            (Some(Retryable::No), _) | (None, Some(Fault::Client)) => Safety::No,
            (None, Some(Fault::Server | Fault::Other) | None) => Safety::Maybe,
        };
        let fault = declared_fault.unwrap_or(match declared_status {
            Some(400..=499) => Fault::Client,
            Some(500..=599) => Fault::Server,
            _ => Fault::Other,
        });
        let status = declared_status.or(match declared_fault {
            Some(Fault::Client) => Some(400),
            Some(Fault::Server) => Some(500),
            Some(Fault::Other) | None => None,
        });
        Classification {
            safety,
            throttle,
            timeout,
            fault,
            status,
        }
    }
}

#[cfg(test)]
mod tests {
    use proc_macro2::Span;

    use super::*;

    fn at<T>(value: T) -> SpannedValue<T> {
        SpannedValue::new(value, Span::call_site())
    }

    fn classify(
        retryable: Option<Retryable>,
        fault: Option<Fault>,
        status: Option<u16>,
    ) -> Classification {
        let attrs = Attrs {
            retryable: retryable.map(at),
            fault: fault.map(at),
            http_error: status.map(at),
            ..Attrs::default()
        };
        Declared::merge(&attrs, None).classify()
    }

    const THROTTLING: Retryable = Retryable::Yes {
        throttling: true,
        timeout: false,
    };
    const PLAIN: Retryable = Retryable::Yes {
        throttling: false,
        timeout: false,
    };

    #[test]
    fn throttling_is_retryable_and_client_when_only_a_4xx_is_given() {
        let c = classify(Some(THROTTLING), None, Some(429));
        assert_eq!(
            (c.safety, c.throttle, c.fault, c.status),
            (Safety::Yes, true, Fault::Client, Some(429))
        );
    }

    #[test]
    fn retryable_keeps_the_declared_fault() {
        let c = classify(Some(PLAIN), Some(Fault::Server), None);
        assert_eq!(
            (c.safety, c.throttle, c.fault, c.status),
            (Safety::Yes, false, Fault::Server, Some(500))
        );
    }

    #[test]
    fn declared_client_fault_is_not_retryable_and_defaults_to_400() {
        let c = classify(None, Some(Fault::Client), None);
        assert_eq!(
            (c.safety, c.fault, c.status),
            (Safety::No, Fault::Client, Some(400))
        );
    }

    #[test]
    fn declared_server_fault_is_maybe_and_defaults_to_500() {
        let c = classify(None, Some(Fault::Server), None);
        assert_eq!(
            (c.safety, c.fault, c.status),
            (Safety::Maybe, Fault::Server, Some(500))
        );
    }

    #[test]
    fn nothing_declared_is_maybe_other_without_status() {
        let c = classify(None, None, None);
        assert_eq!(
            (c.safety, c.throttle, c.timeout, c.fault, c.status),
            (Safety::Maybe, false, false, Fault::Other, None)
        );
    }

    #[test]
    fn status_alone_derives_the_fault_but_not_the_safety() {
        assert_eq!(classify(None, None, Some(404)).fault, Fault::Client);
        assert_eq!(classify(None, None, Some(404)).safety, Safety::Maybe);
        assert_eq!(classify(None, None, Some(503)).fault, Fault::Server);
    }

    #[test]
    fn explicit_not_retryable_is_never_retried() {
        assert_eq!(
            classify(Some(Retryable::No), Some(Fault::Server), None).safety,
            Safety::No
        );
        assert_eq!(
            classify(Some(Retryable::No), None, Some(503)).safety,
            Safety::No
        );
        assert_eq!(
            classify(Some(Retryable::No), Some(Fault::Client), None).safety,
            Safety::No
        );
    }

    #[test]
    fn variant_attributes_override_enum_defaults() {
        let defaults = Attrs {
            retryable: Some(at(PLAIN)),
            fault: Some(at(Fault::Server)),
            ..Attrs::default()
        };
        let own = Attrs {
            retryable: Some(at(Retryable::No)),
            ..Attrs::default()
        };
        let c = Declared::merge(&own, Some(&defaults)).classify();
        assert_eq!(
            (c.safety, c.fault, c.status),
            (Safety::No, Fault::Server, Some(500))
        );
        let c = Declared::merge(&Attrs::default(), Some(&defaults)).classify();
        assert_eq!(c.safety, Safety::Yes);
    }
}
