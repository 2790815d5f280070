#![deny(warnings)]

use rebound::{ErrorInfo, RetryInfo};

#[derive(Debug, RetryInfo)]
enum Never {}

fn assert_impls<T: RetryInfo + ErrorInfo>() {}

fn main() {
    assert_impls::<Never>();
}
