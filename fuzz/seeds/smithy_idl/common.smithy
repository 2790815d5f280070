$version: "2"

namespace example.common

/// Too many requests; try again later.
@error("server")
@retryable(throttling: true)
@httpError(503)
structure Busy {
    message: String
}
