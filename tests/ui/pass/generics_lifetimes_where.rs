#![deny(warnings)]

use std::fmt::Debug;

use rebound::{ErrorFault, ErrorInfo, RetryInfo, RetrySafety};

/// A wrapped error of a generic type must implement the traits for the
/// transparent variant; the derive adds that bound itself.
#[derive(Debug, RetryInfo)]
enum OperationError<'a, E, T: Debug>
where
    T: Clone,
{
    #[retry_info(transparent)]
    Inner(E),
    #[error_fault(client)]
    Invalid { field: &'a str, value: T },
    #[retryable]
    Busy(std::marker::PhantomData<T>),
}

#[derive(Debug, RetryInfo)]
#[retry_info(transparent)]
struct Wrapper<E>(Box<E>);

fn main() {
    let err: OperationError<'_, std::io::Error, u8> =
        OperationError::Inner(std::io::ErrorKind::TimedOut.into());
    assert!(err.is_timeout());
    let err: OperationError<'_, std::io::Error, u8> = OperationError::Invalid { field: "x", value: 1 };
    assert_eq!(err.retry_safety(), RetrySafety::No);
    assert_eq!(err.fault(), ErrorFault::Client);
    let err: OperationError<'_, std::io::Error, u8> = OperationError::Busy(Default::default());
    assert_eq!(err.retry_safety(), RetrySafety::Yes);

    let wrapped = Wrapper(Box::new(std::io::Error::from(std::io::ErrorKind::NotFound)));
    assert_eq!(wrapped.retry_safety(), RetrySafety::No);
}
