use rebound::RetryInfo;

#[derive(Debug, RetryInfo)]
enum Error {
    #[retry_info(transparent)]
    Io(std::io::Error, String),
}

fn main() {}
