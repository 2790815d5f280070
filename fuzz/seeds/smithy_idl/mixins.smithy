$version: "2"
namespace a

@mixin
structure M { id: String }
structure S with [M] {
    @required
    $id
    count: Integer = 1
}
enum E { A, B = "b" }
intEnum I { X = 1 }
apply S @documentation("""
    text
    block""")
