use rebound::RetryInfo;

#[derive(Debug, RetryInfo)]
enum Error {
    #[http_error(4_29)]
    Underscore,
    #[http_error(429u16)]
    Suffix,
    #[http_error(0x1f5)]
    Hex,
}

fn main() {}
