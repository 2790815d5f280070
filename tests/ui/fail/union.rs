use rebound::RetryInfo;

#[derive(RetryInfo)]
union Bits {
    code: u32,
    raw: f32,
}

fn main() {}
