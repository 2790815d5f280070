use rebound::RetryInfo;

#[derive(Debug, RetryInfo)]
#[retry_info(transparent)]
enum Error {
    Io(std::io::Error),
    Unknown,
}

fn main() {}
