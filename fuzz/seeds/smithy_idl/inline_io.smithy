$version: "2"
namespace example.weather

/// The weather.
service Weather {
    version: "1"
    operations: [GetCity]
}

operation GetCity {
    input := {
        @required
        cityId: String
    }
    errors: [Busy, NoSuchCity]
}

@error("server")
@retryable(throttling: true)
@httpError(503)
structure Busy {
    message: String
}

@error("client")
structure NoSuchCity {}
