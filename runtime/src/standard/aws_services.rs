//! Per-service special cases of the AWS SDKs, as data.
//!
//! The strategy's core knows no service names: it takes an
//! [`AwsServiceDefaults`] (through
//! [`StandardRetryStrategyBuilder::service_defaults`](crate::StandardRetryStrategyBuilder::service_defaults)),
//! and this table is the one place that maps names to the special cases
//! botocore applies.

use core::time::Duration;

/// The retry special cases of one AWS service operation.
///
/// # Examples
///
/// ```
/// use std::time::Duration;
/// use rebound_runtime::AwsServiceDefaults;
///
/// let get_item = AwsServiceDefaults::lookup("dynamodb", "GetItem");
/// assert_eq!(get_item.max_attempts, Some(4));
/// assert_eq!(get_item.non_throttling_base, Some(Duration::from_millis(25)));
///
/// assert!(AwsServiceDefaults::lookup("sqs", "ReceiveMessage").long_polling);
/// assert_eq!(AwsServiceDefaults::lookup("s3", "GetObject"), AwsServiceDefaults::NONE);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct AwsServiceDefaults {
    /// Default attempts when none are configured (behaviour 2.1 only).
    pub max_attempts: Option<u32>,
    /// Backoff base for errors that are not throttling (behaviour 2.1 only).
    pub non_throttling_base: Option<Duration>,
    /// The operation long-polls: when the quota is exhausted, sleep the
    /// backoff before giving up, so a polling loop does not spin (behaviour
    /// 2.1 only).
    pub long_polling: bool,
    /// Error codes retried as transient for this service (both behaviours).
    pub transient_error_codes: &'static [&'static str],
    /// The service sends an `x-amz-crc32` checksum of the response body; a
    /// mismatch is a retryable failure
    /// ([`Classified::retryable`](crate::Classified::retryable) with the status).
    /// For the HTTP integration, which computes it.
    pub checks_response_crc32: bool,
}

impl AwsServiceDefaults {
    /// No special case.
    pub const NONE: Self = Self {
        max_attempts: None,
        non_throttling_base: None,
        long_polling: false,
        transient_error_codes: &[],
        checks_response_crc32: false,
    };

    /// The special cases of `operation` of the service with hyphenated service
    /// id `service` (`dynamodb`, `dynamodb-streams`, `sqs`, ...; compared
    /// case-insensitively). [`NONE`](Self::NONE) for anything else.
    #[must_use]
    pub fn lookup(service: &str, operation: &str) -> Self {
        let is = |name: &str| service.eq_ignore_ascii_case(name);
        let long_polling = LONG_POLLING_OPERATIONS
            .iter()
            .any(|(name, operations)| is(name) && operations.contains(&operation));
        let special = if is("dynamodb") {
            Self {
                checks_response_crc32: true,
                ..DYNAMODB
            }
        } else if is("dynamodb-streams") {
            DYNAMODB
        } else if is("sts") {
            Self {
                transient_error_codes: &["IDPCommunicationError"],
                ..Self::NONE
            }
        } else {
            Self::NONE
        };
        Self {
            long_polling,
            ..special
        }
    }
}

/// DynamoDB and DynamoDB Streams: one more attempt and a shorter backoff base
/// (botocore 1.44).
const DYNAMODB: AwsServiceDefaults = AwsServiceDefaults {
    max_attempts: Some(4),
    non_throttling_base: Some(Duration::from_millis(25)),
    ..AwsServiceDefaults::NONE
};

/// botocore 1.44's long-polling operations (until the `aws.api#longPoll`
/// trait is in the service models).
const LONG_POLLING_OPERATIONS: &[(&str, &[&str])] = &[
    ("sqs", &["ReceiveMessage"]),
    ("sfn", &["GetActivityTask"]),
    ("swf", &["PollForActivityTask", "PollForDecisionTask"]),
    (
        "kinesis",
        &["ReceiveQueueRecords", "ReceiveDeadLetterQueueRecords"],
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_cases_match_the_reference() {
        let streams = AwsServiceDefaults::lookup("DynamoDB-Streams", "GetRecords");
        assert_eq!(
            (streams.max_attempts, streams.checks_response_crc32),
            (Some(4), false)
        );
        assert!(AwsServiceDefaults::lookup("dynamodb", "Query").checks_response_crc32);
        assert_eq!(
            AwsServiceDefaults::lookup("sts", "AssumeRole").transient_error_codes,
            ["IDPCommunicationError"]
        );
        for (service, operation) in [
            ("sfn", "GetActivityTask"),
            ("swf", "PollForDecisionTask"),
            ("kinesis", "ReceiveQueueRecords"),
        ] {
            assert!(
                AwsServiceDefaults::lookup(service, operation).long_polling,
                "{service} {operation}"
            );
        }
        assert!(!AwsServiceDefaults::lookup("sqs", "SendMessage").long_polling);
    }
}
