use rebound::RetryInfo;

#[derive(Debug, RetryInfo)]
enum Error {
    #[retry_info(crate = "::rebound")]
    Oops,
}

fn main() {}
