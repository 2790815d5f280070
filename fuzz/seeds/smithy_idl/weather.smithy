$version: "2"

namespace example.weather

use example.common#Busy

/// Weather forecasts.
service Weather {
    version: "2024-01-01"
    operations: [GetCity]
    errors: [Busy]
}

@readonly
operation GetCity {
    input := {
        @required
        cityId: CityId
    }
    output := {
        name: String
    }
    errors: [NoSuchCity]
}

@pattern("^[a-z]+$")
string CityId

/// The city is not known.
@error("client")
@httpError(404)
structure NoSuchCity {
    message: String
}
