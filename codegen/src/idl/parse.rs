//! The parser of one `.smithy` file: its text in, an [`IdlFile`] out, with
//! shape IDs as written (they are resolved when files are assembled into a
//! model, [`super::assemble`]).
//!
//! A recursive-descent parser working on characters, as the IDL's grammar
//! (spec/idl.rst, "Smithy IDL ABNF") tells spaces (`SP`) from line breaks
//! (`BR`) and both from whitespace that may hold commas and comments (`WS`).
//! Node values nest at most [`MAX_DEPTH`] deep, so that no input can
//! exhaust the stack; every loop consumes input, so none can hang.

use std::collections::HashSet;

use indexmap::IndexMap;

use super::node::Node;
use crate::ast::ShapeType;

/// How deep node values (arrays and objects) may nest. Real models nest a
/// few levels; the bound keeps a hostile file from exhausting the stack.
pub(crate) const MAX_DEPTH: usize = 64;

/// A position in the file: 1-based line and column (in characters).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Pos {
    pub(crate) line: usize,
    pub(crate) column: usize,
}

/// What is wrong, and where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SyntaxError {
    pub(crate) pos: Pos,
    pub(crate) message: String,
}

/// The IDL version a file declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Version {
    V1,
    V2,
}

/// An applied trait: its shape ID as written, and its value (`None` when
/// omitted: `@required`, `@tags()`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Trait {
    pub(crate) id: String,
    pub(crate) value: Option<Node>,
    pub(crate) pos: Pos,
}

/// A member: of a structure, union, enum, list or map.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct MemberDef {
    pub(crate) name: String,
    /// `None` when elided (`$name`).
    pub(crate) target: Option<String>,
    pub(crate) docs: Option<String>,
    pub(crate) traits: Vec<Trait>,
    /// `= value`.
    pub(crate) value: Option<Node>,
    pub(crate) pos: Pos,
}

/// A shape statement.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ShapeDef {
    pub(crate) name: String,
    pub(crate) shape_type: ShapeType,
    /// IDL 1.0's `set`, read as a list.
    pub(crate) is_set: bool,
    pub(crate) docs: Option<String>,
    pub(crate) traits: Vec<Trait>,
    pub(crate) mixins: Vec<String>,
    pub(crate) for_resource: Option<String>,
    pub(crate) members: Vec<MemberDef>,
    /// Service, resource and operation: the properties of the body.
    pub(crate) body: IndexMap<String, Node>,
    pub(crate) pos: Pos,
}

/// An `apply` statement: traits for a shape (or member) defined anywhere.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct ApplyDef {
    pub(crate) target: String,
    pub(crate) traits: Vec<Trait>,
    pub(crate) pos: Pos,
}

/// One parsed file.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct IdlFile {
    pub(crate) version: Version,
    pub(crate) metadata: Vec<(String, Node, Pos)>,
    pub(crate) namespace: Option<String>,
    /// `use` statements: the absolute shape ID imported.
    pub(crate) uses: Vec<(String, Pos)>,
    pub(crate) shapes: Vec<ShapeDef>,
    pub(crate) applies: Vec<ApplyDef>,
}

type Result<T> = std::result::Result<T, SyntaxError>;

/// Parses the text of one `.smithy` file.
pub(crate) fn parse(text: &str) -> Result<IdlFile> {
    Parser::new(text).file()
}

/// Parses one node value and nothing else (whitespace around it aside):
/// JSON text reads too.
pub(crate) fn parse_node(text: &str) -> Result<Node> {
    let mut parser = Parser::new(text);
    parser.ws()?;
    let node = parser.node(0)?;
    parser.ws()?;
    if !parser.eof() {
        return parser.error(format!("unexpected {} after the value", parser.found()));
    }
    Ok(node)
}

struct Parser<'a> {
    text: &'a str,
    at: usize,
    line: usize,
    column: usize,
    /// Documentation comment lines seen since they were last taken or
    /// dropped.
    docs: Vec<String>,
    version: Version,
    input_suffix: String,
    output_suffix: String,
    namespace: Option<String>,
}

fn is_ident_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

fn is_ident_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// Whether `s` is a Smithy identifier: `_*[A-Za-z][A-Za-z0-9_]*`.
pub(crate) fn is_identifier(s: &str) -> bool {
    let rest = s.trim_start_matches('_');
    rest.starts_with(|c: char| c.is_ascii_alphabetic()) && rest.chars().all(is_ident_char)
}

/// Whether `s` is a namespace: identifiers joined by `.`.
pub(crate) fn is_namespace(s: &str) -> bool {
    s.split('.').all(is_identifier)
}

/// Whether `s` is a shape ID, absolute (`ns#Name`) or relative (`Name`),
/// with an optional `$member`.
pub(crate) fn is_shape_id(s: &str) -> bool {
    let (root, member) = match s.split_once('$') {
        Some((root, member)) => (root, Some(member)),
        None => (s, None),
    };
    let name = match root.split_once('#') {
        Some((namespace, name)) => {
            if !is_namespace(namespace) {
                return false;
            }
            name
        }
        None => root,
    };
    is_identifier(name) && member.is_none_or(is_identifier)
}

/// The shape types of a statement's keyword.
fn shape_keyword(word: &str) -> Option<(ShapeType, bool)> {
    let shape_type = match word {
        "blob" => ShapeType::Blob,
        "boolean" => ShapeType::Boolean,
        "document" => ShapeType::Document,
        "string" => ShapeType::String,
        "byte" => ShapeType::Byte,
        "short" => ShapeType::Short,
        "integer" => ShapeType::Integer,
        "long" => ShapeType::Long,
        "float" => ShapeType::Float,
        "double" => ShapeType::Double,
        "bigInteger" => ShapeType::BigInteger,
        "bigDecimal" => ShapeType::BigDecimal,
        "timestamp" => ShapeType::Timestamp,
        "enum" => ShapeType::Enum,
        "intEnum" => ShapeType::IntEnum,
        "list" => ShapeType::List,
        "set" => return Some((ShapeType::List, true)),
        "map" => ShapeType::Map,
        "union" => ShapeType::Union,
        "structure" => ShapeType::Structure,
        "service" => ShapeType::Service,
        "resource" => ShapeType::Resource,
        "operation" => ShapeType::Operation,
        _ => return None,
    };
    Some((shape_type, false))
}

impl<'a> Parser<'a> {
    fn new(text: &'a str) -> Self {
        Self {
            // A byte-order mark is not part of the model.
            text: text.strip_prefix('\u{feff}').unwrap_or(text),
            at: 0,
            line: 1,
            column: 1,
            docs: Vec::new(),
            // A file without `$version` is read as 1.0, as Smithy reads it.
            version: Version::V1,
            input_suffix: "Input".to_owned(),
            output_suffix: "Output".to_owned(),
            namespace: None,
        }
    }

    // ---- characters -------------------------------------------------

    fn pos(&self) -> Pos {
        Pos {
            line: self.line,
            column: self.column,
        }
    }

    fn rest(&self) -> &'a str {
        &self.text[self.at..]
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn peek_at(&self, n: usize) -> Option<char> {
        self.rest().chars().nth(n)
    }

    fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.at += c.len_utf8();
        if c == '\n' {
            self.line += 1;
            self.column = 1;
        } else {
            self.column += 1;
        }
        Some(c)
    }

    fn eof(&self) -> bool {
        self.at >= self.text.len()
    }

    fn error<T>(&self, message: impl Into<String>) -> Result<T> {
        Err(SyntaxError {
            pos: self.pos(),
            message: message.into(),
        })
    }

    /// What the next character is, for an error message.
    fn found(&self) -> String {
        match self.peek() {
            None => "the end of the file".to_owned(),
            Some('\n') => "a line break".to_owned(),
            Some(c) => format!("{c:?}"),
        }
    }

    fn expect_char(&mut self, c: char) -> Result<()> {
        if self.peek() == Some(c) {
            self.bump();
            Ok(())
        } else {
            self.error(format!("expected {c:?}, found {}", self.found()))
        }
    }

    fn eat(&mut self, s: &str) -> bool {
        if self.rest().starts_with(s) {
            for _ in s.chars() {
                self.bump();
            }
            true
        } else {
            false
        }
    }

    // ---- whitespace -------------------------------------------------

    /// `[SP]`: spaces and tabs.
    fn sp(&mut self) -> bool {
        let mut any = false;
        while matches!(self.peek(), Some(' ' | '\t')) {
            self.bump();
            any = true;
        }
        any
    }

    /// A line break (`\n`, `\r\n`); a lone `\r` is not one.
    fn newline(&mut self) -> Result<bool> {
        match self.peek() {
            Some('\n') => {
                self.bump();
                Ok(true)
            }
            Some('\r') if self.peek_at(1) == Some('\n') => {
                self.bump();
                self.bump();
                Ok(true)
            }
            Some('\r') => self.error("a carriage return not followed by a line feed"),
            _ => Ok(false),
        }
    }

    /// A comment, if one starts here (through its line break or the end of
    /// the file). A documentation comment's text is kept.
    fn comment(&mut self) -> Result<bool> {
        if !self.rest().starts_with("//") {
            return Ok(false);
        }
        // `///` documents only as the first thing on its line.
        let line_start = self.text[..self.at].rfind('\n').map_or(0, |i| i + 1);
        let doc = self.rest().starts_with("///")
            && self.text[line_start..self.at]
                .chars()
                .all(|c| c == ' ' || c == '\t');
        let start = self.at + if doc { 3 } else { 2 };
        while !matches!(self.peek(), None | Some('\n' | '\r')) {
            self.bump();
        }
        if doc {
            let text = &self.text[start..self.at];
            let text = text.strip_prefix(' ').unwrap_or(text);
            self.docs.push(text.to_owned());
        }
        self.newline()?;
        Ok(true)
    }

    /// `[WS]`: spaces, line breaks, commas and comments.
    fn ws(&mut self) -> Result<bool> {
        let mut any = false;
        loop {
            if self.sp() || self.newline()? || self.comment()? {
                any = true;
            } else if self.peek() == Some(',') {
                self.bump();
                any = true;
            } else {
                return Ok(any);
            }
        }
    }

    /// `BR`: `[SP]`, then at least one line break or comment, then `[WS]`;
    /// or the end of the file.
    fn br(&mut self) -> Result<()> {
        self.sp();
        if self.eof() {
            return Ok(());
        }
        if !(self.newline()? || self.comment()?) {
            return self.error(format!("expected a line break, found {}", self.found()));
        }
        self.ws()?;
        Ok(())
    }

    /// `SP` (required).
    fn expect_sp(&mut self) -> Result<()> {
        if self.sp() {
            Ok(())
        } else {
            self.error(format!("expected a space, found {}", self.found()))
        }
    }

    /// The documentation comments seen since the last call, joined.
    fn take_docs(&mut self) -> Option<String> {
        if self.docs.is_empty() {
            return None;
        }
        let docs = self.docs.join("\n");
        self.docs.clear();
        Some(docs)
    }

    // ---- tokens -----------------------------------------------------

    /// An identifier.
    fn identifier(&mut self) -> Result<String> {
        let start = self.at;
        let rest = self.rest();
        let len = rest
            .char_indices()
            .find(|&(_, c)| !is_ident_char(c))
            .map_or(rest.len(), |(i, _)| i);
        let word = &rest[..len];
        if !is_identifier(word) {
            return self.error(format!("expected an identifier, found {}", self.found()));
        }
        for _ in 0..len {
            self.bump();
        }
        Ok(self.text[start..self.at].to_owned())
    }

    /// The characters of a shape ID (identifier characters, `.`, `#`,
    /// `$`), checked against the shape ID grammar.
    fn shape_id(&mut self) -> Result<String> {
        let pos = self.pos();
        let rest = self.rest();
        let len = rest
            .char_indices()
            .find(|&(_, c)| !(is_ident_char(c) || matches!(c, '.' | '#' | '$')))
            .map_or(rest.len(), |(i, _)| i);
        let id = &rest[..len];
        if !is_shape_id(id) {
            return Err(SyntaxError {
                pos,
                message: if id.is_empty() {
                    format!("expected a shape ID, found {}", self.found())
                } else {
                    format!("{id:?} is not a valid shape ID")
                },
            });
        }
        for _ in 0..len {
            self.bump();
        }
        Ok(id.to_owned())
    }

    /// A shape ID without a member.
    fn root_shape_id(&mut self) -> Result<String> {
        let pos = self.pos();
        let id = self.shape_id()?;
        if id.contains('$') {
            return Err(SyntaxError {
                pos,
                message: format!("{id:?} names a member where a shape is expected"),
            });
        }
        Ok(id)
    }

    /// A quoted string (`"..."`) or a text block (`"""`...`"""`).
    fn string(&mut self) -> Result<String> {
        if self.rest().starts_with("\"\"\"") {
            return self.text_block();
        }
        let start = self.pos();
        self.expect_char('"')?;
        let mut out = String::new();
        loop {
            match self.peek() {
                None => {
                    return self.error(format!(
                        "the string opened at line {}, column {} is never closed",
                        start.line, start.column
                    ));
                }
                Some('"') => {
                    self.bump();
                    return Ok(out);
                }
                Some('\\') => self.escape(&mut out).map_err(|e| SyntaxError {
                    pos: start,
                    message: e.message,
                })?,
                Some('\r') => {
                    self.newline()?;
                    out.push('\n');
                }
                Some(c) => {
                    self.bump();
                    out.push(c);
                }
            }
        }
    }

    /// An escape sequence, at its backslash.
    fn escape(&mut self, out: &mut String) -> Result<()> {
        let pos = self.pos();
        self.bump();
        let c = match self.bump() {
            Some('"') => '"',
            Some('\\') => '\\',
            Some('/') => '/',
            Some('b') => '\u{8}',
            Some('f') => '\u{c}',
            Some('n') => '\n',
            Some('r') => '\r',
            Some('t') => '\t',
            Some('\n') => return Ok(()),
            Some('\r') => {
                if self.peek() == Some('\n') {
                    self.bump();
                }
                return Ok(());
            }
            Some('u') => return self.unicode_escape(out, pos),
            _ => {
                return Err(SyntaxError {
                    pos,
                    message: "invalid escape sequence".to_owned(),
                });
            }
        };
        out.push(c);
        Ok(())
    }

    /// `\uHHHH`, after its `u`: a surrogate pair is joined; a lone
    /// surrogate is an error.
    fn unicode_escape(&mut self, out: &mut String, pos: Pos) -> Result<()> {
        let high = self.hex4(pos)?;
        let code = if (0xd800..0xdc00).contains(&high) {
            if !self.eat("\\u") {
                return Err(SyntaxError {
                    pos,
                    message: "a high surrogate escape not followed by a low one".to_owned(),
                });
            }
            let low = self.hex4(pos)?;
            if !(0xdc00..0xe000).contains(&low) {
                return Err(SyntaxError {
                    pos,
                    message: "a high surrogate escape not followed by a low one".to_owned(),
                });
            }
            0x10000 + ((high - 0xd800) << 10) + (low - 0xdc00)
        } else {
            high
        };
        match char::from_u32(code) {
            Some(c) => {
                out.push(c);
                Ok(())
            }
            None => Err(SyntaxError {
                pos,
                message: "a lone surrogate escape".to_owned(),
            }),
        }
    }

    fn hex4(&mut self, pos: Pos) -> Result<u32> {
        let mut value = 0;
        for _ in 0..4 {
            let digit = self.peek().and_then(|c| c.to_digit(16));
            let Some(digit) = digit else {
                return Err(SyntaxError {
                    pos,
                    message: "a \\u escape needs four hexadecimal digits".to_owned(),
                });
            };
            self.bump();
            value = value * 16 + digit;
        }
        Ok(value)
    }

    /// A text block, at its opening `"""`.
    fn text_block(&mut self) -> Result<String> {
        let start = self.pos();
        let at_start = |message: &str| SyntaxError {
            pos: start,
            message: message.to_owned(),
        };
        self.eat("\"\"\"");
        self.sp();
        if !self.newline().map_err(|e| at_start(&e.message))? {
            return Err(at_start(
                "a text block must start with a line break after its \"\"\"",
            ));
        }
        let mut raw = String::new();
        loop {
            if self.rest().starts_with("\"\"\"") {
                self.eat("\"\"\"");
                break;
            }
            match self.peek() {
                None => {
                    return self.error(format!(
                        "the text block opened at line {}, column {} is never closed",
                        start.line, start.column
                    ));
                }
                Some('\\') => {
                    // Escapes are applied after the incidental whitespace is
                    // removed; keep them as written, marked.
                    self.bump();
                    raw.push('\\');
                    if let Some(c) = self.peek() {
                        if c == '\r' {
                            self.newline()?;
                            raw.push('\n');
                        } else {
                            self.bump();
                            raw.push(c);
                        }
                    }
                }
                Some('\r') => {
                    self.newline()?;
                    raw.push('\n');
                }
                Some(c) => {
                    self.bump();
                    raw.push(c);
                }
            }
        }
        let text = strip_incidental_whitespace(&raw);
        unescape(&text).ok_or_else(|| at_start("invalid escape sequence in a text block"))
    }

    /// A number: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
    fn number(&mut self) -> Result<String> {
        let pos = self.pos();
        self.number_text().map_err(|e| SyntaxError {
            pos,
            message: e.message,
        })
    }

    fn number_text(&mut self) -> Result<String> {
        let start = self.at;
        let digits = |p: &mut Self| {
            let mut any = false;
            while p.peek().is_some_and(|c| c.is_ascii_digit()) {
                p.bump();
                any = true;
            }
            any
        };
        self.eat("-");
        if self.peek() == Some('0') {
            self.bump();
        } else if !digits(self) {
            return self.error(format!("expected a number, found {}", self.found()));
        }
        if self.peek() == Some('.') {
            self.bump();
            if !digits(self) {
                return self.error("expected digits after the decimal point");
            }
        }
        if matches!(self.peek(), Some('e' | 'E')) {
            self.bump();
            if matches!(self.peek(), Some('+' | '-')) {
                self.bump();
            }
            if !digits(self) {
                return self.error("expected digits in the exponent");
            }
        }
        if self.peek().is_some_and(is_ident_char) {
            return self.error(format!("unexpected {} after a number", self.found()));
        }
        Ok(self.text[start..self.at].to_owned())
    }

    // ---- node values ------------------------------------------------

    /// A node value.
    fn node(&mut self, depth: usize) -> Result<Node> {
        if depth > MAX_DEPTH {
            return self.error(format!("node values nest more than {MAX_DEPTH} deep"));
        }
        match self.peek() {
            Some('[') => {
                self.bump();
                self.ws()?;
                let mut items = Vec::new();
                while self.peek() != Some(']') {
                    if self.eof() {
                        return self.error("an array that is never closed");
                    }
                    items.push(self.node(depth + 1)?);
                    self.ws()?;
                }
                self.bump();
                Ok(Node::Array(items))
            }
            Some('{') => Ok(Node::Object(self.node_object(depth)?)),
            Some('"') => Ok(Node::String(self.string()?)),
            Some(c) if c == '-' || c.is_ascii_digit() => Ok(Node::Number(self.number()?)),
            Some(c) if is_ident_start(c) => {
                let id = self.shape_id()?;
                Ok(match id.as_str() {
                    "true" => Node::Bool(true),
                    "false" => Node::Bool(false),
                    "null" => Node::Null,
                    _ => Node::ShapeId(id),
                })
            }
            _ => self.error(format!("expected a node value, found {}", self.found())),
        }
    }

    /// An object node, at its `{`.
    fn node_object(&mut self, depth: usize) -> Result<IndexMap<String, Node>> {
        if depth > MAX_DEPTH {
            return self.error(format!("node values nest more than {MAX_DEPTH} deep"));
        }
        self.expect_char('{')?;
        self.ws()?;
        let mut entries = IndexMap::new();
        while self.peek() != Some('}') {
            if self.eof() {
                return self.error("an object that is never closed");
            }
            let (key, value) = self.node_kvp(depth)?;
            self.insert_unique(&mut entries, key, value)?;
            self.ws()?;
        }
        self.bump();
        Ok(entries)
    }

    /// `key: value` of an object.
    fn node_kvp(&mut self, depth: usize) -> Result<(String, Node)> {
        let key = self.node_key()?;
        self.ws()?;
        self.expect_char(':')?;
        self.ws()?;
        let value = self.node(depth + 1)?;
        Ok((key, value))
    }

    fn node_key(&mut self) -> Result<String> {
        if self.peek() == Some('"') {
            if self.rest().starts_with("\"\"\"") {
                return self.error("a text block cannot be an object key");
            }
            self.string()
        } else {
            self.identifier()
        }
    }

    fn insert_unique(
        &self,
        entries: &mut IndexMap<String, Node>,
        key: String,
        value: Node,
    ) -> Result<()> {
        if entries.contains_key(&key) {
            return self.error(format!("the key {key:?} is given twice"));
        }
        entries.insert(key, value);
        Ok(())
    }

    // ---- the file ---------------------------------------------------

    fn file(mut self) -> Result<IdlFile> {
        self.ws()?;
        self.docs.clear();
        self.control_section()?;
        let metadata = self.metadata_section()?;
        let mut file = IdlFile {
            version: self.version,
            metadata,
            namespace: None,
            uses: Vec::new(),
            shapes: Vec::new(),
            applies: Vec::new(),
        };
        if self.eof() {
            return Ok(file);
        }
        self.docs.clear();
        if !self.keyword("namespace") {
            return self.error(format!(
                "expected `namespace` before any shape, found {}",
                self.found()
            ));
        }
        self.expect_sp()?;
        let pos = self.pos();
        let rest = self.rest();
        let len = rest
            .char_indices()
            .find(|&(_, c)| !(is_ident_char(c) || c == '.'))
            .map_or(rest.len(), |(i, _)| i);
        let namespace = rest[..len].to_owned();
        for _ in 0..len {
            self.bump();
        }
        if !is_namespace(&namespace) {
            return Err(SyntaxError {
                pos,
                message: format!("{namespace:?} is not a namespace"),
            });
        }
        self.namespace = Some(namespace.clone());
        file.namespace = Some(namespace);
        self.end_statement()?;
        while self.keyword("use") {
            self.docs.clear();
            self.expect_sp()?;
            let pos = self.pos();
            let id = self.root_shape_id()?;
            if !id.contains('#') {
                return Err(SyntaxError {
                    pos,
                    message: format!("`use` needs an absolute shape ID, found {id:?}"),
                });
            }
            file.uses.push((id, pos));
            self.end_statement()?;
        }
        while !self.eof() {
            self.shape_or_apply(&mut file)?;
        }
        Ok(file)
    }

    /// Whether the text here is the word `word` (not the start of a longer
    /// identifier); consumes it if so.
    fn keyword(&mut self, word: &str) -> bool {
        let rest = self.rest();
        if rest.starts_with(word) && !rest[word.len()..].starts_with(is_ident_char) {
            self.eat(word);
            true
        } else {
            false
        }
    }

    fn control_section(&mut self) -> Result<()> {
        let mut seen_version = false;
        while self.peek() == Some('$') {
            self.docs.clear();
            self.bump();
            let key = self.node_key()?;
            self.sp();
            self.expect_char(':')?;
            self.sp();
            let pos = self.pos();
            let value = self.node(0)?;
            match key.as_str() {
                "version" => {
                    if seen_version {
                        return Err(SyntaxError {
                            pos,
                            message: "`$version` is given twice".to_owned(),
                        });
                    }
                    seen_version = true;
                    self.version = match &value {
                        Node::String(v) if matches!(v.as_str(), "1" | "1.0") => Version::V1,
                        Node::String(v) if matches!(v.as_str(), "2" | "2.0") => Version::V2,
                        Node::String(v) => {
                            return Err(SyntaxError {
                                pos,
                                message: format!(
                                    "unsupported IDL version {v:?} (1.0 and 2.0 are read)"
                                ),
                            });
                        }
                        _ => {
                            return Err(SyntaxError {
                                pos,
                                message: "`$version` must be a string".to_owned(),
                            });
                        }
                    };
                }
                "operationInputSuffix" | "operationOutputSuffix" => {
                    let Node::String(suffix) = value else {
                        return Err(SyntaxError {
                            pos,
                            message: format!("`${key}` must be a string"),
                        });
                    };
                    if !suffix.chars().all(is_ident_char) {
                        return Err(SyntaxError {
                            pos,
                            message: format!("`${key}` {suffix:?} is not a shape name suffix"),
                        });
                    }
                    if key == "operationInputSuffix" {
                        self.input_suffix = suffix;
                    } else {
                        self.output_suffix = suffix;
                    }
                }
                // Unknown control statements are ignored, as the
                // specification requires.
                _ => {}
            }
            self.end_statement()?;
        }
        Ok(())
    }

    fn metadata_section(&mut self) -> Result<Vec<(String, Node, Pos)>> {
        let mut metadata = Vec::new();
        while self.keyword("metadata") {
            self.docs.clear();
            self.expect_sp()?;
            let pos = self.pos();
            let key = self.node_key()?;
            self.sp();
            self.expect_char('=')?;
            self.sp();
            let value = self.node(0)?;
            metadata.push((key, value, pos));
            self.end_statement()?;
        }
        Ok(metadata)
    }

    /// A shape statement or an `apply` statement, through its line break.
    fn shape_or_apply(&mut self, file: &mut IdlFile) -> Result<()> {
        if self.keyword("apply") {
            self.docs.clear();
            let apply = self.apply()?;
            file.applies.push(apply);
            return self.end_statement();
        }
        let docs = self.take_docs();
        let traits = self.trait_statements()?;
        self.docs.clear();
        let pos = self.pos();
        let word = self.identifier().or_else(|_| {
            self.error(format!(
                "expected a shape statement, found {}",
                self.found()
            ))
        })?;
        let Some((shape_type, is_set)) = shape_keyword(&word) else {
            return Err(SyntaxError {
                pos,
                message: format!("unknown shape type `{word}`"),
            });
        };
        if is_set && self.version == Version::V2 {
            return Err(SyntaxError {
                pos,
                message: "`set` is IDL 1.0 only: use a list with @uniqueItems".to_owned(),
            });
        }
        if matches!(shape_type, ShapeType::Enum | ShapeType::IntEnum) && self.version == Version::V1
        {
            return Err(SyntaxError {
                pos,
                message: format!("`{word}` shapes need IDL 2.0"),
            });
        }
        self.expect_sp()?;
        let name_pos = self.pos();
        let name = self.identifier()?;
        let mut shape = ShapeDef {
            name,
            shape_type,
            is_set,
            docs,
            traits,
            mixins: Vec::new(),
            for_resource: None,
            members: Vec::new(),
            body: IndexMap::new(),
            pos: name_pos,
        };
        match shape_type {
            ShapeType::List
            | ShapeType::Map
            | ShapeType::Structure
            | ShapeType::Union
            | ShapeType::Enum
            | ShapeType::IntEnum => {
                if !matches!(shape_type, ShapeType::Enum | ShapeType::IntEnum) {
                    shape.for_resource = self.for_resource()?;
                }
                shape.mixins = self.mixins()?;
                self.ws()?;
                let is_enum = matches!(shape_type, ShapeType::Enum | ShapeType::IntEnum);
                shape.members = self.members(is_enum)?;
                file.shapes.push(shape);
            }
            ShapeType::Service | ShapeType::Resource => {
                shape.mixins = self.mixins()?;
                self.ws()?;
                self.docs.clear();
                shape.body = self.node_object(0)?;
                if self.version == Version::V1 && shape.body.contains_key("properties") {
                    return Err(SyntaxError {
                        pos: name_pos,
                        message: "resource properties need IDL 2.0".to_owned(),
                    });
                }
                file.shapes.push(shape);
            }
            ShapeType::Operation => {
                shape.mixins = self.mixins()?;
                self.ws()?;
                self.docs.clear();
                let inline = self.operation_body(&mut shape)?;
                file.shapes.push(shape);
                file.shapes.extend(inline);
            }
            _ => {
                shape.mixins = self.mixins()?;
                file.shapes.push(shape);
            }
        }
        self.end_statement()
    }

    /// The end of a statement: documentation comments inside it count for
    /// nothing; then its line break, whose comments may document the next.
    fn end_statement(&mut self) -> Result<()> {
        self.docs.clear();
        self.br()
    }

    /// `for Resource`, if it comes next.
    fn for_resource(&mut self) -> Result<Option<String>> {
        let save = (self.at, self.line, self.column);
        if self.sp() && self.keyword("for") {
            self.expect_sp()?;
            return Ok(Some(self.root_shape_id()?));
        }
        (self.at, self.line, self.column) = save;
        Ok(None)
    }

    /// `with [A, B]`, if it comes next.
    fn mixins(&mut self) -> Result<Vec<String>> {
        let save = (self.at, self.line, self.column);
        self.sp();
        if !self.keyword("with") {
            (self.at, self.line, self.column) = save;
            return Ok(Vec::new());
        }
        if self.version == Version::V1 {
            return self.error("mixins need IDL 2.0");
        }
        self.ws()?;
        self.expect_char('[')?;
        self.ws()?;
        let mut mixins = Vec::new();
        while self.peek() != Some(']') {
            if self.eof() {
                return self.error("a mixin list that is never closed");
            }
            mixins.push(self.root_shape_id()?);
            self.ws()?;
        }
        self.bump();
        if mixins.is_empty() {
            return self.error("`with []` names no mixin");
        }
        Ok(mixins)
    }

    /// `{ members }` of an aggregate or enum shape.
    fn members(&mut self, is_enum: bool) -> Result<Vec<MemberDef>> {
        self.docs.clear();
        self.expect_char('{')?;
        self.ws()?;
        let mut members: Vec<MemberDef> = Vec::new();
        let mut names = HashSet::new();
        while self.peek() != Some('}') {
            if self.eof() {
                return self.error("a shape body that is never closed");
            }
            let docs = self.take_docs();
            let traits = self.trait_statements()?;
            self.docs.clear();
            if self.peek() == Some('}') {
                return self.error("traits that apply to no member");
            }
            let pos = self.pos();
            let (name, target) = if is_enum {
                (self.identifier()?, None)
            } else if self.peek() == Some('$') {
                if self.version == Version::V1 {
                    return self.error("elided members need IDL 2.0");
                }
                self.bump();
                (self.identifier()?, None)
            } else {
                let name = self.identifier()?;
                self.sp();
                self.expect_char(':')?;
                self.sp();
                (name, Some(self.shape_id()?))
            };
            if !names.insert(name.clone()) {
                return Err(SyntaxError {
                    pos,
                    message: format!("the member `{name}` is defined twice"),
                });
            }
            let save = (self.at, self.line, self.column);
            self.sp();
            let value = if self.peek() == Some('=') {
                if self.version == Version::V1 {
                    return self.error("default values need IDL 2.0");
                }
                self.bump();
                self.sp();
                let value = self.node(0)?;
                self.sp();
                if self.peek() == Some(',') {
                    self.bump();
                }
                self.br()?;
                Some(value)
            } else {
                (self.at, self.line, self.column) = save;
                None
            };
            members.push(MemberDef {
                name,
                target,
                docs,
                traits,
                value,
                pos,
            });
            self.ws()?;
        }
        self.bump();
        Ok(members)
    }

    /// `{ input ..., output ..., errors: [...] }`; returns the inline
    /// input and output structures.
    fn operation_body(&mut self, operation: &mut ShapeDef) -> Result<Vec<ShapeDef>> {
        self.expect_char('{')?;
        self.ws()?;
        let mut inline = Vec::new();
        while self.peek() != Some('}') {
            if self.eof() {
                return self.error("an operation body that is never closed");
            }
            let pos = self.pos();
            let key = self.identifier()?;
            if operation.body.contains_key(&key) {
                return Err(SyntaxError {
                    pos,
                    message: format!("the operation property `{key}` is given twice"),
                });
            }
            self.ws()?;
            let value = match key.as_str() {
                "input" | "output" if self.rest().starts_with(":=") => {
                    if self.version == Version::V1 {
                        return self.error("inline input and output need IDL 2.0");
                    }
                    self.docs.clear();
                    self.eat(":=");
                    self.ws()?;
                    let suffix = if key == "input" {
                        &self.input_suffix
                    } else {
                        &self.output_suffix
                    };
                    let name = format!("{}{suffix}", operation.name);
                    let shape = self.inline_structure(name.clone(), &key)?;
                    inline.push(shape);
                    let namespace = self.namespace.clone().unwrap_or_default();
                    Node::ShapeId(format!("{namespace}#{name}"))
                }
                "input" | "output" => {
                    self.expect_char(':')?;
                    self.ws()?;
                    Node::ShapeId(self.root_shape_id()?)
                }
                "errors" => {
                    self.expect_char(':')?;
                    self.ws()?;
                    self.node(0)?
                }
                _ => {
                    return Err(SyntaxError {
                        pos,
                        message: format!(
                            "unknown operation property `{key}` (input, output and errors are)"
                        ),
                    });
                }
            };
            operation.body.insert(key, value);
            self.ws()?;
            self.docs.clear();
        }
        self.bump();
        Ok(inline)
    }

    /// The structure of `input := ...` (`role` is `input` or `output`).
    fn inline_structure(&mut self, name: String, role: &str) -> Result<ShapeDef> {
        let docs = self.take_docs();
        let mut traits = self.trait_statements()?;
        self.docs.clear();
        let pos = self.pos();
        traits.push(Trait {
            id: format!("smithy.api#{role}"),
            value: None,
            pos,
        });
        let for_resource = if self.keyword("for") {
            self.expect_sp()?;
            let id = self.root_shape_id()?;
            Some(id)
        } else {
            None
        };
        let mixins = self.mixins()?;
        self.ws()?;
        let members = self.members(false)?;
        Ok(ShapeDef {
            name,
            shape_type: ShapeType::Structure,
            is_set: false,
            docs,
            traits,
            mixins,
            for_resource,
            members,
            body: IndexMap::new(),
            pos,
        })
    }

    /// `apply Target @trait` or `apply Target { @a @b }`, after `apply`.
    fn apply(&mut self) -> Result<ApplyDef> {
        self.expect_sp()?;
        let pos = self.pos();
        let target = self.shape_id()?;
        if !self.ws()? {
            return self.error(format!(
                "expected whitespace after the apply target, found {}",
                self.found()
            ));
        }
        let traits = if self.peek() == Some('{') {
            self.bump();
            self.ws()?;
            let traits = self.trait_statements()?;
            self.expect_char('}')?;
            traits
        } else if self.peek() == Some('@') {
            vec![self.trait_statement()?]
        } else {
            return self.error(format!(
                "expected a trait or `{{` after the apply target, found {}",
                self.found()
            ));
        };
        Ok(ApplyDef {
            target,
            traits,
            pos,
        })
    }

    /// `*(Trait [WS])`.
    fn trait_statements(&mut self) -> Result<Vec<Trait>> {
        let mut traits = Vec::new();
        while self.peek() == Some('@') {
            traits.push(self.trait_statement()?);
            self.ws()?;
        }
        Ok(traits)
    }

    /// `@id`, `@id(value)` or `@id(key: value, ...)`.
    fn trait_statement(&mut self) -> Result<Trait> {
        let pos = self.pos();
        self.expect_char('@')?;
        let id = self.root_shape_id()?;
        if self.peek() != Some('(') {
            return Ok(Trait {
                id,
                value: None,
                pos,
            });
        }
        self.bump();
        self.ws()?;
        if self.peek() == Some(')') {
            self.bump();
            return Ok(Trait {
                id,
                value: None,
                pos,
            });
        }
        let value = if self.starts_kvp() {
            let mut entries = IndexMap::new();
            while self.peek() != Some(')') {
                if self.eof() {
                    return self.error("a trait value that is never closed");
                }
                let (key, value) = self.node_kvp(0)?;
                self.insert_unique(&mut entries, key, value)?;
                self.ws()?;
            }
            Node::Object(entries)
        } else {
            let value = self.node(0)?;
            self.ws()?;
            value
        };
        self.expect_char(')')?;
        Ok(Trait {
            id,
            value: Some(value),
            pos,
        })
    }

    /// Whether a `key:` starts here (the structured form of a trait value).
    fn starts_kvp(&mut self) -> bool {
        let save = (self.at, self.line, self.column, self.docs.len());
        let is_kvp = (self.peek() == Some('"') && !self.rest().starts_with("\"\"\"")
            || self.peek().is_some_and(is_ident_start))
            && self.node_key().is_ok()
            && self.ws().is_ok()
            && self.peek() == Some(':');
        let (at, line, column, docs) = save;
        (self.at, self.line, self.column) = (at, line, column);
        self.docs.truncate(docs);
        is_kvp
    }
}

/// A text block's content with its incidental whitespace removed
/// (spec/idl.rst, "Incidental white space removal"). Escapes are still as
/// written.
fn strip_incidental_whitespace(raw: &str) -> String {
    let lines: Vec<&str> = raw.split('\n').collect();
    let last = lines.len() - 1;
    let indent = lines
        .iter()
        .enumerate()
        .filter(|&(i, line)| i == last || !line.trim_matches([' ', '\t']).is_empty())
        .map(|(_, line)| line.len() - line.trim_start_matches(' ').len())
        .min()
        .unwrap_or(0);
    let mut out = String::with_capacity(raw.len());
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let line = if line.len() >= indent {
            &line[indent..]
        } else {
            ""
        };
        out.push_str(line.trim_end_matches(' '));
    }
    out
}

/// Applies the escapes of a text block's content; `None` on an invalid one.
fn unescape(text: &str) -> Option<String> {
    if !text.contains('\\') {
        return Some(text.to_owned());
    }
    // The parser's own escape reading, on the content.
    let mut parser = Parser::new(text);
    let mut out = String::with_capacity(text.len());
    while let Some(c) = parser.peek() {
        if c == '\\' {
            parser.escape(&mut out).ok()?;
        } else {
            parser.bump();
            out.push(c);
        }
    }
    Some(out)
}
