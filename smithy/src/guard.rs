//! Keeping a client's own retries off under [`send`](crate::send): a check
//! of its configuration, and an interceptor that refuses, before anything is
//! sent, an operation whose effective configuration would retry.

use aws_smithy_runtime_api::box_error::BoxError;
use aws_smithy_runtime_api::client::interceptors::Intercept;
use aws_smithy_runtime_api::client::interceptors::context::BeforeSerializationInterceptorContextRef;
use aws_smithy_runtime_api::client::runtime_components::RuntimeComponents;
use aws_smithy_types::config_bag::ConfigBag;
use aws_smithy_types::retry::RetryConfig;

use crate::error::ClientRetries;

/// Checks that a client makes one attempt per call, as [`send`](crate::send)
/// needs: pass its retry configuration (`client.config().retry_config()`).
///
/// A configuration that is not set (`None`) is refused: the client's
/// behaviour version then decides, and from `BehaviorVersion::v2026_01_12()`
/// on an AWS SDK client retries 3 times by default. A client's config does
/// not say its behaviour version, so set `RetryConfig::disabled()`; or
/// install [`ClientRetriesGuard`], which reads what each operation will use.
///
/// # Errors
///
/// [`ClientRetries`] when the client may retry by itself: rebound's
/// attempts would multiply with its own.
///
/// # Examples
///
/// ```
/// use aws_smithy_types::retry::RetryConfig;
///
/// assert!(rebound_smithy::check_client_retries(Some(&RetryConfig::disabled())).is_ok());
/// let error = rebound_smithy::check_client_retries(Some(&RetryConfig::standard())).unwrap_err();
/// assert_eq!(error.max_attempts(), Some(3));
/// let error = rebound_smithy::check_client_retries(None).unwrap_err();
/// assert_eq!(error.max_attempts(), None);
/// ```
pub fn check_client_retries(config: Option<&RetryConfig>) -> Result<(), ClientRetries> {
    match config {
        None => Err(ClientRetries::new(None)),
        Some(config) if config.has_retry() => Err(ClientRetries::new(Some(config.max_attempts()))),
        Some(_) => Ok(()),
    }
}

/// An interceptor that fails an operation whose client would retry it by
/// itself, before anything is sent, with [`ClientRetries`] as the error's
/// source: the guard of [`send`](crate::send) that sees what a
/// configuration check cannot, the behaviour version's default and a
/// `config_override` turning retries back on for one call.
///
/// # Examples
///
/// ```
/// use aws_sdk_dynamodb::config::retry::RetryConfig;
/// use aws_sdk_dynamodb::config::BehaviorVersion;
///
/// let config = aws_sdk_dynamodb::Config::builder()
///     .behavior_version(BehaviorVersion::latest())
///     .retry_config(RetryConfig::disabled())
///     .interceptor(rebound_smithy::ClientRetriesGuard)
///     .build();
/// # let _ = config;
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct ClientRetriesGuard;

impl Intercept for ClientRetriesGuard {
    fn name(&self) -> &'static str {
        "rebound::ClientRetriesGuard"
    }

    fn read_before_serialization(
        &self,
        _context: &BeforeSerializationInterceptorContextRef<'_>,
        _components: &RuntimeComponents,
        cfg: &mut ConfigBag,
    ) -> Result<(), BoxError> {
        // By now the bag holds what the operation will use, merged: the
        // client's default (its behaviour version's), its config, and any
        // override (applied after the client's interceptors' first hook).
        // Without any, the client does not retry.
        match cfg.load::<RetryConfig>() {
            Some(config) => check_client_retries(Some(config)).map_err(Into::into),
            None => Ok(()),
        }
    }
}
