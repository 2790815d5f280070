#![deny(warnings)]

use std::time::Duration;

use rebound::{ErrorFault, ErrorInfo, RetryInfo, RetrySafety};

#[derive(Debug, RetryInfo)]
enum Shapes {
    #[retryable]
    Unit,
    #[retryable(throttling = true)]
    Tuple(String, #[retry_after] Option<u64>),
    #[retryable(timeout = true)]
    Struct {
        message: String,
        #[retry_after]
        after: core::time::Duration,
    },
}

#[derive(Debug, RetryInfo)]
#[error_fault(server)]
struct UnitStruct;

#[derive(Debug, RetryInfo)]
#[http_error(404)]
struct TupleStruct(String);

#[derive(Debug, RetryInfo)]
#[retryable]
struct NamedStruct {
    #[retry_after]
    seconds: i64,
}

#[allow(non_camel_case_types)]
#[derive(Debug, RetryInfo)]
enum Raw {
    r#type,
}

fn main() {
    assert_eq!(Shapes::Unit.retry_safety(), RetrySafety::Yes);
    let tuple = Shapes::Tuple("x".into(), Some(2));
    assert!(tuple.is_throttle());
    assert_eq!(tuple.retry_after(), Some(Duration::from_secs(2)));
    let strukt = Shapes::Struct { message: "m".into(), after: Duration::from_millis(10) };
    assert!(strukt.is_timeout());
    assert_eq!(strukt.retry_after(), Some(Duration::from_millis(10)));
    assert_eq!(strukt.error_code(), Some("Struct"));

    assert_eq!(UnitStruct.fault(), ErrorFault::Server);
    assert_eq!(UnitStruct.http_status(), Some(500));
    assert_eq!(TupleStruct("x".into()).fault(), ErrorFault::Client);
    assert_eq!(TupleStruct("x".into()).retry_safety(), RetrySafety::Maybe);
    assert_eq!(NamedStruct { seconds: -1 }.retry_after(), None);
    assert_eq!(Raw::r#type.error_code(), Some("type"));
}
