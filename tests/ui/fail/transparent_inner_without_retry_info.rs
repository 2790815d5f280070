use rebound::RetryInfo;

#[derive(Debug)]
struct NotClassified;

#[derive(Debug, RetryInfo)]
enum Error {
    #[retry_info(transparent)]
    Inner(NotClassified),
}

fn main() {}
