use rebound::RetryInfo;

#[derive(Debug, RetryInfo)]
enum Error {
    #[retry_info(transparant)]
    Io(std::io::Error),
}

fn main() {}
