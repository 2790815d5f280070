//! Smithy `@documentation` values (HTML, as in AWS models, or CommonMark)
//! as the Markdown lines of a Rust doc comment.
//!
//! Safety comes first: the output never contains a code block (so no
//! doctest can appear), every character Markdown or rustdoc could give a
//! meaning to is escaped, bare URLs become autolinks, and each paragraph or
//! list item is a single line (so clippy's list lints cannot fire).
//! Fidelity comes second: paragraphs, flat lists, inline code, links and
//! headings (as bold paragraphs) survive; emphasis is dropped.
//!
//! The converter is a single linear pass: a small HTML tokenizer feeds a
//! [`Writer`] that builds one block (paragraph or list item) at a time.
//! Input without anything that looks like an HTML tag is read as CommonMark
//! instead (paragraphs, bullet lists, fenced code, code spans and links).

use std::collections::HashMap;

/// The longest tag (from `<` to `>`) taken as a tag; a longer one is text.
/// Bounds the work done for each `<`, keeping the pass linear.
const MAX_TAG_LEN: usize = 4096;

/// Characters stripped from the end of a bare URL (kept as text after it).
const URL_TRAILING: &[char] = &['.', ',', ';', ':', '!', '?', ']', '}', '*'];

/// The lines of a Rust doc comment for a Smithy `@documentation` value
/// (HTML, as in AWS models), converted to Markdown that rustdoc renders
/// without warnings. Empty when the text has no visible content.
///
/// Each line is given without the `///` and without a leading space; empty
/// lines separate paragraphs. No line starts or ends with whitespace, no
/// two blank lines follow each other, and the first and last lines are
/// never blank.
pub(crate) fn doc_lines(html: &str) -> Vec<String> {
    let mut writer = Writer::default();
    if looks_like_html(html) {
        parse_html(html, &mut writer);
    } else {
        parse_markdown(html, &mut writer);
    }
    writer.finish()
}

// ---------------------------------------------------------------------------
// HTML
// ---------------------------------------------------------------------------

/// Whether `text` has something that reads as an HTML tag, comment or
/// declaration (`<p`, `</p`, `<!`); autolinks (`<https://…>`) do not count.
fn looks_like_html(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.iter().enumerate().any(|(at, &byte)| {
        if byte != b'<' {
            return false;
        }
        let rest = &text[at + 1..];
        match rest.as_bytes().first() {
            Some(c) if c.is_ascii_alphabetic() => url_extent(rest).is_none(),
            Some(b'/') => rest.as_bytes().get(1).is_some_and(u8::is_ascii_alphabetic),
            Some(b'!') => true,
            _ => false,
        }
    })
}

/// One markup token of the HTML input.
#[derive(Debug, PartialEq)]
enum Tag<'a> {
    /// `<name attrs>` or `<name attrs/>`; `name` lowercased.
    Start {
        name: String,
        attrs: &'a str,
        self_closing: bool,
    },
    /// `</name>`; `name` lowercased.
    End { name: String },
    /// A comment, `<!DOCTYPE …>`, `<![CDATA[…]]>` or `<?…?>`: dropped.
    Other,
}

/// Tokenizes `html` into text runs and tags and feeds them to `writer`.
/// A `<` that does not start a well-formed tag is text.
fn parse_html(html: &str, writer: &mut Writer) {
    let mut text_start = 0;
    let mut pos = 0;
    while let Some(offset) = html[pos..].find('<') {
        let lt = pos + offset;
        match parse_tag(html, lt) {
            Some((tag, end)) => {
                writer.text(&html[text_start..lt]);
                writer.tag(tag);
                text_start = end;
                pos = end;
            }
            None => pos = lt + 1,
        }
    }
    writer.text(&html[text_start..]);
}

/// The tag starting at the `<` at byte `lt` of `html`, and the byte just
/// after it; `None` when that `<` is text.
fn parse_tag(html: &str, lt: usize) -> Option<(Tag<'_>, usize)> {
    let bytes = html.as_bytes();
    let at = lt + 1;
    match *bytes.get(at)? {
        b'!' => {
            if bytes[at..].starts_with(b"!--") {
                // An unterminated comment runs to the end, as in browsers.
                let body = at + 3;
                let end = html[body..]
                    .find("-->")
                    .map_or(html.len(), |p| body + p + 3);
                return Some((Tag::Other, end));
            }
            let next = *bytes.get(at + 1)?;
            if !(next.is_ascii_alphabetic() || next == b'[') {
                return None;
            }
            let gt = find_plain_gt(bytes, at + 1, lt)?;
            Some((Tag::Other, gt + 1))
        }
        b'?' => {
            if !bytes.get(at + 1)?.is_ascii_alphabetic() {
                return None;
            }
            let gt = find_plain_gt(bytes, at + 1, lt)?;
            Some((Tag::Other, gt + 1))
        }
        b'/' => {
            let name_start = at + 1;
            if !bytes.get(name_start)?.is_ascii_alphabetic() {
                return None;
            }
            let name_end = tag_name_end(bytes, name_start);
            let gt = find_plain_gt(bytes, name_end, lt)?;
            let name = html[name_start..name_end].to_ascii_lowercase();
            Some((Tag::End { name }, gt + 1))
        }
        first if first.is_ascii_alphabetic() => {
            if url_extent(&html[at..]).is_some() {
                // `<https://…>`: an autolink, handled as text.
                return None;
            }
            let name_end = tag_name_end(bytes, at);
            let gt = find_attrs_gt(bytes, name_end, lt)?;
            let self_closing = gt > name_end && bytes[gt - 1] == b'/';
            let attrs_end = if self_closing { gt - 1 } else { gt };
            let tag = Tag::Start {
                name: html[at..name_end].to_ascii_lowercase(),
                attrs: &html[name_end..attrs_end],
                self_closing,
            };
            Some((tag, gt + 1))
        }
        _ => None,
    }
}

/// The end of a tag name starting at `from`: the first whitespace, `/`,
/// `>` or `<` (or the end of the input).
fn tag_name_end(bytes: &[u8], from: usize) -> usize {
    bytes[from..]
        .iter()
        .position(|&b| b.is_ascii_whitespace() || matches!(b, b'/' | b'>' | b'<'))
        .map_or(bytes.len(), |p| from + p)
}

/// The `>` ending a tag without attributes that began at `lt`, searching
/// from `from`; `None` at a `<`, at the end of the input or past
/// [`MAX_TAG_LEN`].
fn find_plain_gt(bytes: &[u8], from: usize, lt: usize) -> Option<usize> {
    let limit = bytes.len().min(lt + MAX_TAG_LEN);
    let window = bytes.get(from..limit)?;
    let p = window.iter().position(|&b| b == b'>' || b == b'<')?;
    (window[p] == b'>').then_some(from + p)
}

/// The `>` ending a start tag that began at `lt`, searching from `from`
/// past attributes whose quoted values may hold `>`; `None` at a `<`
/// outside quotes, an unterminated quote, the end of the input or past
/// [`MAX_TAG_LEN`].
fn find_attrs_gt(bytes: &[u8], from: usize, lt: usize) -> Option<usize> {
    let limit = bytes.len().min(lt + MAX_TAG_LEN);
    let mut at = from;
    let mut after_equals = false;
    while at < limit {
        match bytes[at] {
            b'>' => return Some(at),
            b'<' => return None,
            quote @ (b'"' | b'\'') if after_equals => {
                let window = bytes.get(at + 1..limit)?;
                let close = window.iter().position(|&b| b == quote)?;
                at += close + 2;
                after_equals = false;
                continue;
            }
            b'=' => after_equals = true,
            b if b.is_ascii_whitespace() => {}
            _ => after_equals = false,
        }
        at += 1;
    }
    None
}

/// The value of attribute `wanted` (lowercase) in `attrs`, entities decoded.
fn attribute(attrs: &str, wanted: &str) -> Option<String> {
    let bytes = attrs.as_bytes();
    let len = bytes.len();
    let mut at = 0;
    loop {
        while at < len && (bytes[at].is_ascii_whitespace() || bytes[at] == b'/') {
            at += 1;
        }
        if at >= len {
            return None;
        }
        let name_start = at;
        while at < len && !(bytes[at].is_ascii_whitespace() || matches!(bytes[at], b'=' | b'/')) {
            at += 1;
        }
        let name = &attrs[name_start..at];
        while at < len && bytes[at].is_ascii_whitespace() {
            at += 1;
        }
        let mut value = "";
        if at < len && bytes[at] == b'=' {
            at += 1;
            while at < len && bytes[at].is_ascii_whitespace() {
                at += 1;
            }
            if at < len && matches!(bytes[at], b'"' | b'\'') {
                let quote = bytes[at];
                let start = at + 1;
                let end = bytes[start..]
                    .iter()
                    .position(|&b| b == quote)
                    .map_or(len, |p| start + p);
                value = &attrs[start..end];
                at = (end + 1).min(len);
            } else {
                let start = at;
                while at < len && !bytes[at].is_ascii_whitespace() {
                    at += 1;
                }
                value = &attrs[start..at];
            }
        } else if at == name_start {
            // A stray `/` was skipped above; nothing else can stall here,
            // but never loop without progress.
            at += 1;
        }
        if name.eq_ignore_ascii_case(wanted) {
            return Some(html_escape::decode_html_entities(value).into_owned());
        }
    }
}

/// Elements that start (and end) a paragraph.
fn is_block(name: &str) -> bool {
    matches!(
        name,
        "p" | "div"
            | "note"
            | "important"
            | "warning"
            | "danger"
            | "tip"
            | "caution"
            | "para"
            | "dl"
            | "dt"
            | "dd"
            | "blockquote"
            | "section"
            | "article"
            | "aside"
            | "header"
            | "footer"
            | "nav"
            | "main"
            | "figure"
            | "figcaption"
            | "table"
            | "thead"
            | "tbody"
            | "tfoot"
            | "tr"
            | "caption"
            | "hr"
            | "title"
            | "fullname"
            | "details"
            | "summary"
            | "center"
            | "address"
            | "fieldset"
            | "form"
            | "example"
            | "examples"
    )
}

/// `h1` to `h6`.
fn is_heading(name: &str) -> bool {
    matches!(name, "h1" | "h2" | "h3" | "h4" | "h5" | "h6")
}

/// Elements shown as inline code.
fn is_code(name: &str) -> bool {
    matches!(name, "code" | "tt" | "kbd" | "samp")
}

/// Lists, flattened to one level.
fn is_list(name: &str) -> bool {
    matches!(name, "ul" | "ol" | "menu" | "dir")
}

/// Elements that never have content or an end tag.
fn is_void(name: &str) -> bool {
    matches!(
        name,
        "br" | "hr"
            | "img"
            | "wbr"
            | "input"
            | "meta"
            | "link"
            | "col"
            | "area"
            | "base"
            | "embed"
            | "source"
            | "track"
            | "param"
    )
}

/// Elements whose content is not documentation.
fn is_skipped(name: &str) -> bool {
    matches!(name, "script" | "style" | "template")
}

// ---------------------------------------------------------------------------
// CommonMark
// ---------------------------------------------------------------------------

/// Reads `text` as CommonMark: paragraphs (lines joined), bullet and
/// ordered list items (flattened), ATX headings (bold paragraphs), fenced
/// code (one code span per line), code spans and `[text](url)` links;
/// everything else is text.
fn parse_markdown(text: &str, writer: &mut Writer) {
    let mut paragraph = String::new();
    let mut fence: Option<(char, usize)> = None;
    for line in text.split('\n') {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let trimmed = line.trim();
        if let Some((fence_char, fence_len)) = fence {
            if is_fence_close(trimmed, fence_char, fence_len) {
                fence = None;
            } else {
                writer.pre_line(line);
            }
            continue;
        }
        if trimmed.is_empty() {
            markdown_block(&mut paragraph, writer);
            writer.item = false;
        } else if let Some(open) = fence_open(trimmed) {
            markdown_block(&mut paragraph, writer);
            writer.item = false;
            fence = Some(open);
        } else if let Some(rest) = list_marker(trimmed) {
            markdown_block(&mut paragraph, writer);
            writer.item = true;
            paragraph.push_str(rest);
        } else if let Some(rest) = atx_heading(trimmed) {
            markdown_block(&mut paragraph, writer);
            writer.item = false;
            writer.heading = true;
            paragraph.push_str(rest);
            markdown_block(&mut paragraph, writer);
        } else {
            if !paragraph.is_empty() {
                paragraph.push(' ');
            }
            paragraph.push_str(trimmed);
        }
    }
    markdown_block(&mut paragraph, writer);
}

/// Writes the collected `paragraph` (if any) as one block and clears it.
fn markdown_block(paragraph: &mut String, writer: &mut Writer) {
    if !paragraph.is_empty() {
        markdown_inline(paragraph, writer);
        paragraph.clear();
    }
    writer.flush();
}

/// A fence opening line: three or more backticks or tildes.
fn fence_open(line: &str) -> Option<(char, usize)> {
    let fence_char = line.chars().next().filter(|c| matches!(c, '`' | '~'))?;
    let len = line.chars().take_while(|&c| c == fence_char).count();
    (len >= 3).then_some((fence_char, len))
}

/// Whether `line` closes a fence of `len` `fence_char`s.
fn is_fence_close(line: &str, fence_char: char, len: usize) -> bool {
    let run = line.chars().take_while(|&c| c == fence_char).count();
    run >= len && line[run * fence_char.len_utf8()..].trim().is_empty()
}

/// The content of a list item line (`- x`, `* x`, `+ x`, `1. x`, `1) x`).
fn list_marker(line: &str) -> Option<&str> {
    let digits = line.bytes().take_while(u8::is_ascii_digit).count();
    let marker = match line.as_bytes().get(digits)? {
        b'-' | b'*' | b'+' if digits == 0 => digits + 1,
        b'.' | b')' if (1..=9).contains(&digits) => digits + 1,
        _ => return None,
    };
    let rest = &line[marker..];
    if rest.starts_with([' ', '\t']) {
        Some(rest.trim_start())
    } else {
        None
    }
}

/// The text of an ATX heading line (`## Title ##`).
fn atx_heading(line: &str) -> Option<&str> {
    let level = line.bytes().take_while(|&b| b == b'#').count();
    if !(1..=6).contains(&level) {
        return None;
    }
    let rest = &line[level..];
    if !(rest.is_empty() || rest.starts_with([' ', '\t'])) {
        return None;
    }
    let rest = rest.trim();
    let closed = rest.trim_end_matches('#');
    if closed.is_empty() || closed.ends_with([' ', '\t']) {
        Some(closed.trim_end())
    } else {
        Some(rest)
    }
}

/// Inline CommonMark: code spans, then links and text in between.
fn markdown_inline(text: &str, writer: &mut Writer) {
    let bytes = text.as_bytes();
    // Backtick runs (start, length), skipping backslash-escaped backticks.
    let mut runs = Vec::new();
    let mut at = 0;
    while at < bytes.len() {
        match bytes[at] {
            b'\\' if bytes.get(at + 1).is_some_and(u8::is_ascii_punctuation) => at += 2,
            b'`' => {
                let len = bytes[at..].iter().take_while(|&&b| b == b'`').count();
                runs.push((at, len));
                at += len;
            }
            _ => at += 1,
        }
    }
    // For each run length, the indices of the runs of that length; a
    // cursor per length only moves forward, so matching is linear.
    let mut by_len: HashMap<usize, (Vec<usize>, usize)> = HashMap::new();
    for (index, &(_, len)) in runs.iter().enumerate() {
        by_len.entry(len).or_default().0.push(index);
    }
    let mut done = 0;
    let mut index = 0;
    while index < runs.len() {
        let (start, len) = runs[index];
        let close = by_len.get_mut(&len).and_then(|(indices, cursor)| {
            while indices.get(*cursor).is_some_and(|&i| i <= index) {
                *cursor += 1;
            }
            indices.get(*cursor).copied()
        });
        match close {
            Some(close) => {
                markdown_text(&text[done..start], writer);
                writer.code_span(&text[start + len..runs[close].0]);
                done = runs[close].0 + len;
                index = close + 1;
            }
            None => index += 1,
        }
    }
    markdown_text(&text[done..], writer);
}

/// Text outside code spans: `[text](http…)` links become links, the rest
/// is text (backslash escapes honoured).
fn markdown_text(text: &str, writer: &mut Writer) {
    let mut done = 0;
    let mut pos = 0;
    let mut closes = NextByte::new(text, |b| b == b']');
    let mut ends = NextByte::new(text, |b| matches!(b, b')' | b' ' | b'\t' | b'<'));
    while let Some(offset) = text[pos..].find('[') {
        let open = pos + offset;
        pos = open + 1;
        if open > 0 && text.as_bytes()[open - 1] == b'\\' {
            continue;
        }
        let Some(close) = closes.find(open) else {
            break;
        };
        if text.as_bytes().get(close + 1) != Some(&b'(') {
            continue;
        }
        let url_start = close + 2;
        let Some(end) = ends.find(url_start) else {
            continue;
        };
        if text.as_bytes()[end] != b')' {
            continue;
        }
        let Some(url) = link_url(&text[url_start..end]) else {
            continue;
        };
        writer.text_decoded(&text[done..open], true);
        writer.open_link(Some(url));
        writer.text_decoded(&text[open + 1..close], true);
        writer.finish_link();
        done = end + 1;
        pos = done;
    }
    writer.text_decoded(&text[done..], true);
}

/// Finds the next byte matching a predicate at or after positions that
/// never decrease, searching each byte at most once.
struct NextByte<'a, F> {
    bytes: &'a [u8],
    matches: F,
    /// The last search: from where, and what it found.
    last: Option<(usize, Option<usize>)>,
}

impl<'a, F: Fn(u8) -> bool> NextByte<'a, F> {
    fn new(text: &'a str, matches: F) -> Self {
        Self {
            bytes: text.as_bytes(),
            matches,
            last: None,
        }
    }

    /// The first matching byte at or after `from`.
    fn find(&mut self, from: usize) -> Option<usize> {
        match self.last {
            Some((start, found)) if start <= from && found.is_none_or(|at| at >= from) => found,
            _ => {
                let found = self
                    .bytes
                    .get(from..)?
                    .iter()
                    .position(|&b| (self.matches)(b))
                    .map(|p| from + p);
                self.last = Some((from, found));
                found
            }
        }
    }
}

// ---------------------------------------------------------------------------
// URLs
// ---------------------------------------------------------------------------

/// `prefix` (ASCII) at the start of `text`, ignoring ASCII case.
fn starts_with_ignore_case(text: &str, prefix: &str) -> bool {
    text.get(..prefix.len())
        .is_some_and(|start| start.eq_ignore_ascii_case(prefix))
}

/// For a URL at the start of `text` (`http://` or `https://` followed by
/// at least one URL character): the length of the scheme and `//`, and of
/// the whole run of URL characters.
fn url_extent(text: &str) -> Option<(usize, usize)> {
    let scheme = if starts_with_ignore_case(text, "https://") {
        8
    } else if starts_with_ignore_case(text, "http://") {
        7
    } else {
        return None;
    };
    let end = text[scheme..]
        .find(|c: char| !is_url_char(c))
        .map_or(text.len(), |p| scheme + p);
    (end > scheme).then_some((scheme, end))
}

/// Characters a bare URL (and an autolink) may hold.
fn is_url_char(c: char) -> bool {
    !(c.is_whitespace()
        || c.is_control()
        || is_dropped(c)
        || matches!(c, '"' | '\'' | '<' | '>' | '`'))
}

/// The length of the bare URL at the start of `text`, without trailing
/// punctuation (and without a trailing `)` that has no `(` to match).
fn bare_url_len(text: &str) -> Option<usize> {
    let (scheme, mut end) = url_extent(text)?;
    let opening = text[..end].matches('(').count();
    let mut closing = text[..end].matches(')').count();
    while end > scheme {
        match text.as_bytes()[end - 1] {
            b')' if closing > opening => closing -= 1,
            b if b.is_ascii() && URL_TRAILING.contains(&char::from(b)) => {}
            _ => break,
        }
        end -= 1;
    }
    (end > scheme).then_some(end)
}

/// The destination for a Markdown link to `href`: an absolute `http(s)`
/// URL, with spaces, parentheses and backslashes percent-encoded and an
/// entity-like `&` escaped; `None` for anything else.
fn link_url(href: &str) -> Option<String> {
    let href = href.trim();
    let (scheme, _) = url_extent(href)?;
    let mut url = String::with_capacity(href.len() + 8);
    for (at, c) in href.char_indices() {
        match c {
            '\t' | '\n' | '\r' => {}
            ' ' => url.push_str("%20"),
            '(' => url.push_str("%28"),
            ')' => url.push_str("%29"),
            '\\' => url.push_str("%5C"),
            '<' | '>' => return None,
            '&' if amp_needs_escape(&href[at + 1..]) => url.push_str("\\&"),
            c if c.is_whitespace() || c.is_control() || is_dropped(c) => return None,
            c => url.push(c),
        }
    }
    (url.len() > scheme).then_some(url)
}

// ---------------------------------------------------------------------------
// Characters
// ---------------------------------------------------------------------------

/// Invisible and bidirectional-control characters: dropped (rustc rejects
/// the latter in literals and comments).
fn is_dropped(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{061C}'
            | '\u{200B}'
            | '\u{200E}'
            | '\u{200F}'
            | '\u{202A}'..='\u{202E}'
            | '\u{2060}'
            | '\u{2066}'..='\u{2069}'
            | '\u{FEFF}'
    )
}

/// Whether an `&` followed by `rest` could be read as a character
/// reference (`&name;`, `&#123;`, `&#x1F;`), or might become one.
fn amp_needs_escape(rest: &str) -> bool {
    let body = rest.strip_prefix('#').unwrap_or(rest);
    let len = body
        .bytes()
        .take(64)
        .take_while(u8::is_ascii_alphanumeric)
        .count();
    rest.is_empty() || (len > 0 && body.as_bytes().get(len) == Some(&b';'))
}

/// `text` with whitespace and control characters collapsed to single
/// spaces and invisible characters dropped, and whether it had whitespace
/// at its start and at its end.
fn collapse(text: &str) -> (String, bool, bool) {
    let mut out = String::with_capacity(text.len());
    let mut leading = false;
    let mut space = false;
    for c in text.chars() {
        if is_dropped(c) {
            continue;
        }
        if c.is_whitespace() || c.is_control() {
            space = true;
            continue;
        }
        if space {
            if out.is_empty() {
                leading = true;
            } else {
                out.push(' ');
            }
            space = false;
        }
        out.push(c);
    }
    if out.is_empty() {
        (out, false, false)
    } else {
        (out, leading, space)
    }
}

// ---------------------------------------------------------------------------
// Output
// ---------------------------------------------------------------------------

/// The kind of a written block, for the blank lines between blocks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Block {
    Paragraph,
    Item,
}

/// An open `<code>` element: its raw text.
#[derive(Debug, Default)]
struct Code {
    depth: usize,
    text: String,
}

/// An open `<pre>` element: its raw text.
#[derive(Debug, Default)]
struct Pre {
    depth: usize,
    text: String,
}

/// An open link: its destination (`None`: not linkable, text only) and
/// where its text starts in the current block.
#[derive(Debug)]
struct Link {
    url: Option<String>,
    start: usize,
}

/// Builds the doc lines one block (one line) at a time.
#[derive(Debug, Default)]
struct Writer {
    /// Finished lines.
    lines: Vec<String>,
    /// The kind of the last finished block.
    last: Option<Block>,
    /// The current block's Markdown so far (never ends with whitespace).
    current: String,
    /// Whitespace is due before the next content of the current block.
    space: bool,
    /// The current block is non-empty and only ASCII digits so far.
    digits_only: bool,
    /// The current block is a list item.
    item: bool,
    /// The current block is a heading (made bold).
    heading: bool,
    /// Open `<ul>`/`<ol>` elements.
    lists: usize,
    code: Option<Code>,
    pre: Option<Pre>,
    link: Option<Link>,
    /// The `<script>`-like element whose content is being skipped.
    skip: Option<String>,
}

impl Writer {
    /// The lines, after closing whatever is still open.
    fn finish(mut self) -> Vec<String> {
        self.finish_pre();
        self.flush();
        self.lines
    }

    /// Ends the current block: writes it as a line if it has content.
    fn flush(&mut self) {
        self.finish_code();
        self.finish_link();
        let content = std::mem::take(&mut self.current);
        if !content.is_empty() {
            let (kind, line) = if self.item {
                (Block::Item, format!("- {content}"))
            } else if self.heading {
                (Block::Paragraph, format!("**{content}**"))
            } else {
                (Block::Paragraph, content)
            };
            let blank = match (self.last, kind) {
                (None, _) | (Some(Block::Item), Block::Item) => false,
                (Some(_), _) => true,
            };
            if blank {
                self.lines.push(String::new());
            }
            self.lines.push(line);
            self.last = Some(kind);
        }
        self.space = false;
        self.digits_only = false;
        self.heading = false;
    }

    /// A paragraph-level boundary: ends the block, or inside a list item
    /// (which must stay one line) separates with a space.
    fn block_boundary(&mut self) {
        if self.item {
            self.soft_space();
        } else {
            self.flush();
        }
    }

    /// Whitespace (`<br>`, table cells), also inside inline code.
    fn soft_space(&mut self) {
        match &mut self.code {
            Some(code) => code.text.push(' '),
            None => self.space = true,
        }
    }

    /// Handles one tag.
    fn tag(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Start {
                name,
                attrs,
                self_closing,
            } => {
                self.start_tag(&name, attrs);
                if self_closing && !is_void(&name) {
                    self.end_tag(&name);
                }
            }
            Tag::End { name } => self.end_tag(&name),
            Tag::Other => {}
        }
    }

    fn start_tag(&mut self, name: &str, attrs: &str) {
        if self.skip.is_some() {
            return;
        }
        if let Some(pre) = &mut self.pre {
            if name == "pre" {
                pre.depth += 1;
            } else if breaks_pre_line(name) {
                pre.text.push('\n');
            }
            return;
        }
        match name {
            _ if is_skipped(name) => self.skip = Some(name.to_owned()),
            "pre" => {
                self.flush();
                self.pre = Some(Pre {
                    depth: 1,
                    text: String::new(),
                });
            }
            "li" => {
                self.flush();
                self.item = true;
            }
            "br" | "td" | "th" => self.soft_space(),
            // Inside inline code, links are dropped (their text stays code).
            "a" if self.code.is_none() => {
                let url = attribute(attrs, "href").and_then(|href| link_url(&href));
                self.open_link(url);
            }
            _ if is_list(name) => {
                self.flush();
                self.lists += 1;
                self.item = true;
            }
            _ if is_code(name) => match &mut self.code {
                Some(code) => code.depth += 1,
                None => {
                    self.code = Some(Code {
                        depth: 1,
                        text: String::new(),
                    });
                }
            },
            _ if is_heading(name) => {
                if self.item {
                    self.soft_space();
                } else {
                    self.flush();
                    self.heading = true;
                }
            }
            _ if is_block(name) => self.block_boundary(),
            _ => {}
        }
    }

    fn end_tag(&mut self, name: &str) {
        if let Some(skipped) = &self.skip {
            if skipped == name {
                self.skip = None;
            }
            return;
        }
        if let Some(pre) = &mut self.pre {
            if name == "pre" {
                pre.depth -= 1;
                if pre.depth == 0 {
                    self.finish_pre();
                }
            } else if breaks_pre_line(name) {
                pre.text.push('\n');
            }
            return;
        }
        match name {
            "li" => {
                self.flush();
                self.item = self.lists > 0;
            }
            "br" | "td" | "th" => self.soft_space(),
            "a" if self.code.is_none() => self.finish_link(),
            _ if is_list(name) => {
                self.flush();
                self.lists = self.lists.saturating_sub(1);
                self.item = self.lists > 0;
            }
            _ if is_code(name) => {
                if let Some(code) = &mut self.code {
                    code.depth -= 1;
                    if code.depth == 0 {
                        self.finish_code();
                    }
                }
            }
            _ if is_heading(name) => {
                if self.heading {
                    self.flush();
                } else {
                    self.block_boundary();
                }
            }
            _ if is_block(name) => self.block_boundary(),
            _ => {}
        }
    }

    /// A run of HTML text (entities not yet decoded).
    fn text(&mut self, raw: &str) {
        if raw.is_empty() || self.skip.is_some() {
            return;
        }
        let text = html_escape::decode_html_entities(raw);
        if let Some(pre) = &mut self.pre {
            pre.text.push_str(&text);
        } else if let Some(code) = &mut self.code {
            code.text.push_str(&text);
        } else {
            self.text_decoded(&text, false);
        }
    }

    /// Text with entities decoded: whitespace collapsed, bare URLs made
    /// autolinks, Markdown characters escaped. With `markdown`, a backslash
    /// before ASCII punctuation escapes it (as in CommonMark) and is
    /// dropped; and entities are decoded here.
    fn text_decoded(&mut self, text: &str, markdown: bool) {
        let decoded;
        let text = if markdown {
            decoded = html_escape::decode_html_entities(text);
            &*decoded
        } else {
            text
        };
        let mut newlines = 0;
        let mut at = 0;
        while let Some(c) = text[at..].chars().next() {
            let next = at + c.len_utf8();
            let rest = &text[next..];
            if c.is_whitespace() {
                if c == '\n' || (c == '\r' && !rest.starts_with('\n')) {
                    newlines += 1;
                }
                self.space = true;
                at = next;
                continue;
            }
            if newlines >= 2 && !self.item && self.link.is_none() {
                // A blank line: a new paragraph.
                self.flush();
            }
            newlines = 0;
            if is_dropped(c) {
                at = next;
                continue;
            }
            if c.is_control() {
                self.space = true;
                at = next;
                continue;
            }
            if self.link.is_none() {
                if matches!(c, 'h' | 'H')
                    && let Some(len) = bare_url_len(&text[at..])
                {
                    self.autolink(&text[at..at + len]);
                    at += len;
                    continue;
                }
                if c == '<'
                    && let Some((_, len)) = url_extent(rest)
                    && rest[len..].starts_with('>')
                {
                    self.autolink(&rest[..len]);
                    at = next + len + 1;
                    continue;
                }
            }
            if markdown
                && c == '\\'
                && let Some(escaped) = rest.chars().next().filter(char::is_ascii_punctuation)
            {
                self.push_char(escaped, &rest[1..]);
                at = next + 1;
                continue;
            }
            self.push_char(c, rest);
            at = next;
        }
    }

    /// Writes due whitespace before new content.
    fn before_content(&mut self) {
        if self.space && !self.current.is_empty() {
            self.current.push(' ');
            self.digits_only = false;
        }
        self.space = false;
    }

    /// Writes one text character (not whitespace), escaped as needed;
    /// `rest` is the text after it.
    fn push_char(&mut self, c: char, rest: &str) {
        self.before_content();
        let at_start = self.current.is_empty();
        let escape = match c {
            '\\' | '`' | '*' | '[' | ']' | '<' | '>' | '#' | '|' | '~' => true,
            // An underscore inside a word can neither open nor close
            // emphasis.
            '_' => {
                !(self
                    .current
                    .chars()
                    .next_back()
                    .is_some_and(char::is_alphanumeric)
                    && rest.chars().next().is_some_and(char::is_alphanumeric))
            }
            '&' => amp_needs_escape(rest),
            '-' | '+' | '=' => at_start,
            '.' | ')' => self.digits_only,
            _ => false,
        };
        if escape {
            self.current.push('\\');
        }
        self.current.push(c);
        self.digits_only = c.is_ascii_digit() && (at_start || self.digits_only);
    }

    /// Writes Markdown as is.
    fn push_markdown(&mut self, markdown: &str) {
        self.before_content();
        self.current.push_str(markdown);
        self.digits_only = false;
    }

    /// Writes `<url>`.
    fn autolink(&mut self, url: &str) {
        self.before_content();
        self.current.reserve(url.len() + 2);
        self.current.push('<');
        self.current.push_str(url);
        self.current.push('>');
        self.digits_only = false;
    }

    /// Writes raw `text` as a code span: whitespace collapsed, nothing for
    /// empty text.
    fn code_span(&mut self, text: &str) {
        let (content, leading, trailing) = collapse(text);
        if content.is_empty() {
            if !text.is_empty() {
                self.space = true;
            }
            return;
        }
        if leading {
            self.space = true;
        }
        match code_fence(&content) {
            Some(fence) => {
                if self.current.ends_with('`') {
                    // Two adjacent code spans would merge their backticks.
                    self.space = true;
                }
                let pad = if content.starts_with('`') || content.ends_with('`') {
                    " "
                } else {
                    ""
                };
                let mut span = String::with_capacity(content.len() + 2 * (fence.len() + 1));
                span.push_str(fence);
                span.push_str(pad);
                span.push_str(&content);
                span.push_str(pad);
                span.push_str(fence);
                self.push_markdown(&span);
            }
            // Runs of one and of two backticks: escaped text rather than a
            // three-backtick code span, which could be mistaken for a fence.
            None => self.text_decoded(&content, false),
        }
        if trailing {
            self.space = true;
        }
    }

    /// Closes an open `<code>` element.
    fn finish_code(&mut self) {
        if let Some(code) = self.code.take() {
            self.code_span(&code.text);
        }
    }

    /// One line of preformatted text, as its own paragraph of inline code.
    fn pre_line(&mut self, line: &str) {
        self.flush();
        let item = std::mem::replace(&mut self.item, false);
        self.code_span(line);
        self.flush();
        self.item = item;
    }

    /// Closes an open `<pre>` element: each non-empty line becomes its own
    /// paragraph of inline code.
    fn finish_pre(&mut self) {
        if let Some(pre) = self.pre.take() {
            self.flush();
            for line in pre.text.split(['\n', '\r']) {
                self.pre_line(line);
            }
        }
    }

    /// Starts a link to `url` (text only when `None`).
    fn open_link(&mut self, url: Option<String>) {
        self.finish_link();
        self.link = Some(Link {
            url,
            start: self.current.len(),
        });
    }

    /// Closes an open link: `[text](url)`, or `<url>` for empty text.
    fn finish_link(&mut self) {
        let Some(Link {
            url: Some(url),
            start,
        }) = self.link.take()
        else {
            return;
        };
        let start = start.min(self.current.len());
        let text = &self.current[start..];
        let start = start + (text.len() - text.trim_start().len());
        if start >= self.current.len() {
            // Whitespace-only text: the URL itself. `url` may carry `\&`,
            // which an autolink would show; it never has `<`, `>` or
            // whitespace.
            self.autolink(&url.replace("\\&", "&"));
        } else {
            self.current.insert(start, '[');
            self.current.push_str("](");
            self.current.push_str(&url);
            self.current.push(')');
            self.digits_only = false;
        }
    }
}

/// The backtick string to delimit a code span of `content`: one longer
/// than the longest run of backticks inside when that is at most two
/// backticks, else one or two backticks if `content` has no run of that
/// length; `None` when it has runs of both lengths.
fn code_fence(content: &str) -> Option<&'static str> {
    let (mut single, mut double) = (false, false);
    let mut run = 0;
    for c in content.chars().chain(std::iter::once(' ')) {
        if c == '`' {
            run += 1;
        } else {
            single |= run == 1;
            double |= run == 2;
            run = 0;
        }
    }
    match (single, double) {
        (false, _) => Some("`"),
        (true, false) => Some("``"),
        (true, true) => None,
    }
}

/// Elements that end a line inside `<pre>`.
fn breaks_pre_line(name: &str) -> bool {
    matches!(name, "br" | "li" | "tr") || is_block(name) || is_heading(name) || is_list(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The doc lines joined with newlines.
    fn md(html: &str) -> String {
        doc_lines(html).join("\n")
    }

    /// Checks the output invariants every input must satisfy.
    fn check_invariants(input: &str) {
        let lines = doc_lines(input);
        assert!(lines.first().is_none_or(|l| !l.is_empty()), "{input:?}");
        assert!(lines.last().is_none_or(|l| !l.is_empty()), "{input:?}");
        for pair in lines.windows(2) {
            assert!(!(pair[0].is_empty() && pair[1].is_empty()), "{input:?}");
        }
        for line in &lines {
            assert_eq!(line.trim(), line, "{input:?}");
            assert!(!line.chars().any(char::is_control), "{input:?}: {line:?}");
            assert!(!line.chars().any(is_dropped), "{input:?}: {line:?}");
            let body = line.strip_prefix("- ").unwrap_or(line);
            assert!(
                !body.starts_with(char::is_whitespace),
                "{input:?}: {line:?}"
            );
            assert!(!body.starts_with("```"), "{input:?}: {line:?}");
            assert!(!body.starts_with("~~~"), "{input:?}: {line:?}");
        }
    }

    #[test]
    fn simple_paragraph() {
        assert_eq!(
            md("<p>The specified queue doesn't exist.</p>"),
            "The specified queue doesn't exist."
        );
    }

    #[test]
    fn code_and_link() {
        assert_eq!(
            md(
                r#"<p>Use <code>ListQueues</code> to see <a href="https://docs.aws.amazon.com/x.html">the docs</a>.</p>"#
            ),
            "Use `ListQueues` to see [the docs](https://docs.aws.amazon.com/x.html)."
        );
    }

    #[test]
    fn list_items() {
        assert_eq!(
            md("<ul><li><p>A</p></li><li>B &amp; <code>C</code></li></ul>"),
            "- A\n- B & `C`"
        );
    }

    #[test]
    fn blank_lines_around_lists() {
        assert_eq!(
            md("<p>Before:</p><ul><li>A</li><li>B</li></ul><p>After.</p>"),
            "Before:\n\n- A\n- B\n\nAfter."
        );
    }

    #[test]
    fn list_item_is_one_line() {
        assert_eq!(
            md("<ul><li><p>First\n   para.</p><p>Second <br/> para.</p></li></ul>"),
            "- First para. Second para."
        );
        assert_eq!(
            md("<ul><li>item\n\nwith blank</li></ul>"),
            "- item with blank"
        );
    }

    #[test]
    fn nested_lists_are_flattened() {
        assert_eq!(
            md(
                "<ul><li>One<ul><li>Nested <code>x</code></li></ul>Tail</li><li>Two</li></ul><p>End</p>"
            ),
            "- One\n- Nested `x`\n- Tail\n- Two\n\nEnd"
        );
        assert_eq!(md("<ol><li>a</li><li>b</li></ol>"), "- a\n- b");
    }

    #[test]
    fn aws_snippet() {
        let html = r#"<note>
            <p>This operation is not supported for directory buckets.</p>
         </note>
         <p>Returns the request payment configuration of a bucket. For more
      information, see <a href="https://docs.aws.amazon.com/AmazonS3/latest/dev/RequesterPaysBuckets.html">Requester Pays Buckets</a>.</p>
         <p>The following operations are related to <code>GetBucketRequestPayment</code>:</p>
         <ul>
            <li>
               <p>
                  <a href="https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjects.html">ListObjects</a>
               </p>
            </li>
         </ul>"#;
        assert_eq!(
            doc_lines(html),
            [
                "This operation is not supported for directory buckets.",
                "",
                "Returns the request payment configuration of a bucket. For more information, see [Requester Pays Buckets](https://docs.aws.amazon.com/AmazonS3/latest/dev/RequesterPaysBuckets.html).",
                "",
                "The following operations are related to `GetBucketRequestPayment`:",
                "",
                "- [ListObjects](https://docs.aws.amazon.com/AmazonS3/latest/API/API_ListObjects.html)",
            ]
        );
    }

    #[test]
    fn brackets_are_escaped() {
        assert_eq!(
            md("<p>See [Foo] and [Bar](Baz) and [^1].</p>"),
            r"See \[Foo\] and \[Bar\](Baz) and \[^1\]."
        );
    }

    #[test]
    fn escaped_entities_stay_text() {
        assert_eq!(
            md("<p>Bucket &lt;bucket-name&gt; and &amp;lt;tag&amp;gt;</p>"),
            r"Bucket \<bucket-name\> and \&lt;tag\&gt;"
        );
        assert_eq!(
            md("&lt;p&gt;not a paragraph&lt;/p&gt;"),
            r"\<p\>not a paragraph\</p\>"
        );
        assert_eq!(md("&#42;star&#x60;"), r"\*star\`");
    }

    #[test]
    fn stray_angle_brackets_are_text() {
        assert_eq!(
            md("<p>a < b, c > d, x <= y, <3, 1<2, < p></p>"),
            r"a \< b, c \> d, x \<= y, \<3, 1\<2, \< p\>"
        );
        assert_eq!(md("Lone < at the end <"), r"Lone \< at the end \<");
        assert_eq!(md("<p>end <"), r"end \<");
        assert_eq!(md("<p>x</"), r"x\</");
    }

    #[test]
    fn unknown_tags_are_dropped() {
        assert_eq!(
            md(
                r#"<p>Raw <bucket-name> and <span class="x">span</span> and <x-y:z a=1>z</x-y:z></p>"#
            ),
            "Raw and span and z"
        );
    }

    #[test]
    fn markdown_characters_are_escaped() {
        assert_eq!(
            md("<p>*a* _b_ `c` #d |e| ~f~ \\g</p>"),
            r"\*a\* \_b\_ \`c\` \#d \|e\| \~f\~ \\g"
        );
        // An underscore inside a word cannot be emphasis.
        assert_eq!(md("<p>snake_case_name _x</p>"), r"snake_case_name \_x");
    }

    #[test]
    fn line_leading_markers_are_escaped() {
        assert_eq!(md("<p>- dash</p>"), r"\- dash");
        assert_eq!(md("<p>+ plus</p>"), r"\+ plus");
        assert_eq!(md("<p>= eq</p>"), r"\= eq");
        assert_eq!(md("<p>2024. A year.</p>"), r"2024\. A year.");
        assert_eq!(md("<p>3) three</p>"), r"3\) three");
        assert_eq!(md("<p><b>1</b>. split</p>"), r"1\. split");
        assert_eq!(
            md("<p>In 2024. Not leading - or 1.</p>"),
            "In 2024. Not leading - or 1."
        );
        assert_eq!(
            md("<ul><li>- a</li><li>1. b</li><li># c</li></ul>"),
            "- \\- a\n- 1\\. b\n- \\# c"
        );
    }

    #[test]
    fn bare_urls_become_autolinks() {
        assert_eq!(
            md("See https://example.com/a_b?x=1&y=2. Also (http://foo.example.com/bar), ok"),
            "See <https://example.com/a_b?x=1&y=2>. Also (<http://foo.example.com/bar>), ok"
        );
        assert_eq!(
            md("<p>https://en.wikipedia.org/wiki/Foo_(bar); and https://x.example.com:</p>"),
            "<https://en.wikipedia.org/wiki/Foo_(bar)>; and <https://x.example.com>:"
        );
        assert_eq!(
            md(r#"<p>"https://example.com/q"</p>"#),
            r#""<https://example.com/q>""#
        );
        assert_eq!(md("<p>https:// alone</p>"), "https:// alone");
        assert_eq!(
            md("<p>Already &lt;https://example.com/x&gt;.</p>"),
            "Already <https://example.com/x>."
        );
    }

    #[test]
    fn links() {
        assert_eq!(
            md(r#"<a href='https://example.com/a b(c)'>spaces</a>"#),
            "[spaces](https://example.com/a%20b%28c%29)"
        );
        assert_eq!(md(r#"<a href="relative/path">rel</a>"#), "rel");
        assert_eq!(md(r#"<a href="mailto:a@b.c">mail</a>"#), "mail");
        assert_eq!(md(r#"<a href="https://x.com/<y>">angle</a>"#), "angle");
        assert_eq!(md(r#"<a name="anchor">anchor</a>"#), "anchor");
        assert_eq!(
            md(r#"see <a href="https://example.com"> </a>."#),
            "see <https://example.com>."
        );
        assert_eq!(
            md(r#"<a href="https://example.com/?a=1&amp;b=2">amp</a>"#),
            "[amp](https://example.com/?a=1&b=2)"
        );
        assert_eq!(
            md(r#"<a href="https://example.com">[x] *y* https://z.example.com</a>"#),
            r"[\[x\] \*y\* https://z.example.com](https://example.com)"
        );
        assert_eq!(
            md(r#"<a href="https://example.com"><code>Code</code> link</a>"#),
            "[`Code` link](https://example.com)"
        );
        assert_eq!(
            md(r#"x <a href="https://example.com">unclosed"#),
            "x [unclosed](https://example.com)"
        );
    }

    #[test]
    fn attributes() {
        assert_eq!(
            md(r#"<a title="a > b" href="https://example.com/">gt</a>"#),
            "[gt](https://example.com/)"
        );
        assert_eq!(
            md("<a title='x>' href=https://example.com/path>unquoted</a>"),
            "[unquoted](https://example.com/path)"
        );
        assert_eq!(
            md(r#"<A HREF = "https://example.com/">upper</A>"#),
            "[upper](https://example.com/)"
        );
        assert_eq!(
            md(r#"<p a="unterminated>text</p>"#),
            r#"\<p a="unterminated\>text"#
        );
        assert_eq!(attribute(r#" x=1 href="h" "#, "href").as_deref(), Some("h"));
        assert_eq!(attribute(" / href", "href").as_deref(), Some(""));
        assert_eq!(attribute(" = href", "href").as_deref(), None);
        assert_eq!(attribute(" hreff=1", "href"), None);
    }

    #[test]
    fn inline_code() {
        assert_eq!(md("<code>`tick`</code>"), "`` `tick` ``");
        assert_eq!(md("<code>``double``</code>"), "` ``double`` `");
        assert_eq!(md("<code>a  \n  b</code>"), "`a b`");
        assert_eq!(md("x<code></code>y <code>  </code> z"), "xy z");
        assert_eq!(md("x<code> y </code>z"), "x `y` z");
        assert_eq!(md("<code>&lt;b&gt; [x] *</code>"), "`<b> [x] *`");
        assert_eq!(md("<code>a<i>b</i></code>"), "`ab`");
        assert_eq!(md("<code>a</code><code>b</code>"), "`a` `b`");
        assert_eq!(md("<code>unclosed"), "`unclosed`");
        // Runs of one and two backticks: plain (escaped) text.
        assert_eq!(md("<code>a`b``c</code>"), r"a\`b\`\`c");
    }

    #[test]
    fn preformatted_text() {
        assert_eq!(
            md("<p>Example:</p><pre>  fn main() {\n\tprintln!(\"hi\");\n\n  }\n</pre><p>Done.</p>"),
            "Example:\n\n`fn main() {`\n\n`println!(\"hi\");`\n\n`}`\n\nDone."
        );
        assert_eq!(
            md("<pre><code>\n```\nfenced\n```\n</code></pre>"),
            "` ``` `\n\n`fenced`\n\n` ``` `"
        );
        assert_eq!(md("<pre></pre><pre>\n\n</pre>"), "");
        assert_eq!(md("<pre>a<br>b</pre>"), "`a`\n\n`b`");
    }

    #[test]
    fn headings_and_blocks() {
        assert_eq!(
            md("<h1>Title</h1><h2> spaced </h2><h3></h3><p>text</p>"),
            "**Title**\n\n**spaced**\n\ntext"
        );
        assert_eq!(
            md("<note><p>A note</p></note><important>Very <b>important</b></important>"),
            "A note\n\nVery important"
        );
        assert_eq!(
            md("<dl><dt>Term</dt><dd>Definition <i>here</i></dd></dl>"),
            "Term\n\nDefinition here"
        );
        assert_eq!(md("<div>a<div>b</div>c</div>"), "a\n\nb\n\nc");
    }

    #[test]
    fn emphasis_is_dropped() {
        assert_eq!(
            md("<p><b>Bold</b> <i>it</i> <strong>s</strong> <em>e</em></p>"),
            "Bold it s e"
        );
    }

    #[test]
    fn comments_and_declarations() {
        assert_eq!(md("a <!-- <p>hidden</p> --> b"), "a b");
        assert_eq!(md("a <!-- never ends"), "a");
        assert_eq!(md("<!DOCTYPE html><![CDATA[x]]><?xml v?>after"), "after");
        assert_eq!(
            md("<script>x('<p>')</script><style>p{}</style>visible"),
            "visible"
        );
    }

    #[test]
    fn whitespace() {
        assert_eq!(md("<p>  a\t\tb \r\n c  </p>  \n\n  "), "a b c");
        assert_eq!(
            md("<p>    four spaces</p><p>\ttab</p>"),
            "four spaces\n\ntab"
        );
        assert_eq!(md("<p>a<br>b<br/>c<br />d</br>e</p>"), "a b c d e");
        assert_eq!(md("<p>\u{a0}\u{a0}\u{a0}\u{a0}nbsp</p>"), "nbsp");
    }

    #[test]
    fn control_and_invisible_characters() {
        assert_eq!(
            md("a\u{0}b\u{7}c\u{1b}d\u{7f}e\u{85}f\u{2028}g"),
            "a b c d e f g"
        );
        assert_eq!(md("a\u{202e}b\u{2066}c\u{200b}d\u{feff}e\u{ad}f"), "abcdef");
        assert_eq!(md("<code>a\u{0}b\u{202e}c</code>"), "`a bc`");
        assert_eq!(
            md("<a href=\"https://x.example.com/\u{202e}\">bidi</a>"),
            "bidi"
        );
    }

    #[test]
    fn empty_input() {
        for input in [
            "",
            "   \n\t ",
            "<p></p>",
            "<p> </p><ul><li></li></ul>",
            "<br/>",
            "<!-- x -->",
        ] {
            assert!(doc_lines(input).is_empty(), "{input:?}");
        }
    }

    #[test]
    fn ampersands() {
        assert_eq!(
            md("AT&T, a & b, &foo; &#0; &amp;amp; end &"),
            r"AT&T, a & b, \&foo; \&\#0; \&amp; end \&"
        );
    }

    #[test]
    fn multibyte_characters() {
        assert_eq!(
            md("é<é 日本<語> 😀<😀 <ü> &eacute;&#233; São"),
            r"é\<é 日本\<語\> 😀\<😀 \<ü\> éé São"
        );
        assert_eq!(md("<p>é</p><é"), "é\n\n\\<é");
    }

    #[test]
    fn plain_text_paragraphs() {
        assert_eq!(
            md("First line\r\nsecond line.\r\n\r\nSecond para\nwith https://example.com/x."),
            "First line second line.\n\nSecond para with <https://example.com/x>."
        );
        assert_eq!(md("a\n\n\n\nb"), "a\n\nb");
    }

    #[test]
    fn commonmark_input() {
        assert_eq!(
            md(
                "Use `Foo` and [docs](https://example.com).\n\n- one\n* two\n1. three\n\nAfter *em*."
            ),
            "Use `Foo` and [docs](https://example.com).\n\n- one\n- two\n- three\n\nAfter \\*em\\*."
        );
        assert_eq!(md("# Title\n\ntext"), "**Title**\n\ntext");
        assert_eq!(
            md("```rust\nfn main() {}\n```\n\n    indented\n    code"),
            "`fn main() {}`\n\nindented code"
        );
        assert_eq!(md("~~~\nunclosed fence"), "`unclosed fence`");
        assert_eq!(
            md("[rel](foo) \\*x\\* `` a`b `` `open"),
            r"\[rel\](foo) \*x\* ``a`b`` \`open"
        );
        assert_eq!(md("> quote\n\n---"), "\\> quote\n\n\\---");
        assert_eq!(
            md("<https://example.com> and a < b"),
            r"<https://example.com> and a \< b"
        );
    }

    #[test]
    fn looks_like_html_detection() {
        assert!(looks_like_html("<p>x</p>"));
        assert!(looks_like_html("x</b>"));
        assert!(looks_like_html("<!-- c -->"));
        assert!(!looks_like_html("a < b <= c <3"));
        assert!(!looks_like_html("<https://example.com>"));
        assert!(!looks_like_html("plain"));
    }

    #[test]
    fn tag_tokenizer() {
        let html = r#"<a href="x>y" b='1'>"#;
        let (tag, end) = parse_tag(html, 0).unwrap();
        assert_eq!(end, html.len());
        assert_eq!(
            tag,
            Tag::Start {
                name: "a".to_owned(),
                attrs: r#" href="x>y" b='1'"#,
                self_closing: false,
            }
        );
        let (tag, _) = parse_tag("<BR/>", 0).unwrap();
        assert!(matches!(tag, Tag::Start { ref name, self_closing: true, .. } if name == "br"));
        let (tag, _) = parse_tag("</Code >", 0).unwrap();
        assert_eq!(
            tag,
            Tag::End {
                name: "code".to_owned()
            }
        );
        for text in [
            "<",
            "< p>",
            "<3",
            "<=",
            "</3>",
            "<a",
            "<a <b>",
            "<é>",
            "<!>",
            "<?>",
            "<a href='x>",
        ] {
            assert!(parse_tag(text, 0).is_none(), "{text:?}");
        }
    }

    #[test]
    fn url_helpers() {
        assert_eq!(bare_url_len("https://a.example.com/x.), y"), Some(23));
        assert_eq!(bare_url_len("http://a.example.com/(x))"), Some(24));
        assert_eq!(bare_url_len("https://"), None);
        assert_eq!(bare_url_len("https://."), None);
        assert_eq!(bare_url_len("ftp://x"), None);
        assert_eq!(
            link_url(" https://a.example.com/x y "),
            Some("https://a.example.com/x%20y".to_owned())
        );
        assert_eq!(
            link_url("https://a.example.com/\\&lt;"),
            Some("https://a.example.com/%5C\\&lt;".to_owned())
        );
        assert_eq!(link_url("javascript:alert(1)"), None);
        assert_eq!(link_url("https://"), None);
    }

    #[test]
    fn never_panics_and_keeps_invariants() {
        let inputs = [
            "<",
            "<<",
            "<a",
            "<a ",
            "<a href",
            "<a href=",
            "<a href=\"",
            "<a href='x",
            "</",
            "</a",
            "<!",
            "<!-",
            "<!--",
            "<!---",
            "<!-->",
            "<?",
            "&",
            "&#",
            "&#x",
            "&#x;",
            "&amp",
            "é<",
            "<é",
            "&é",
            "<p>é&",
            "<code>",
            "</code>",
            "<pre>",
            "</pre></pre>",
            "<li>",
            "</li>",
            "</ul></ul>",
            "<ul><ul><li>x",
            "<h1><p>x</p></h1>",
            "<a href=\"https://x.example.com\"><a href=\"https://y.example.com\">y</a></a>",
            "<code><pre>x</pre></code>",
            "<pre><code>x</pre></code>",
            "`",
            "``",
            "```",
            "~~~",
            "- ",
            "-",
            "1.",
            "1. ",
            "#",
            "# ",
            "[",
            "](",
            "[x](",
            "[x](https://",
            "[x](https://a.example.com",
            "\\",
            "\r",
            "\r\n\r\n",
            "\u{0}",
            "<p>\u{202e}</p>",
            "<a href=\"https://a.example.com\">\u{200b}</a>",
            "<script>",
            "<style>x",
            "<code>`</code>",
            "<code>``</code>",
            "<code>` ``</code>",
            "<h2>*</h2>",
            "<h2>- x</h2>",
            "<li>1.</li>",
            "<p>1</p>",
            "<p>123)</p>",
        ];
        for input in inputs {
            check_invariants(input);
        }
    }

    #[test]
    fn exhaustive_short_inputs() {
        // Every string of up to four characters from an alphabet of the
        // special characters.
        let alphabet = [
            '<', '>', '/', '&', ';', '#', 'a', 'p', '"', '\'', '=', '!', '-', '`', '\n', ' ', '\\',
            '[', ']', '(', ')', '*', '_', 'é', '1', '.', 'h',
        ];
        let mut input = String::new();
        let n = alphabet.len();
        for len in 1..=4u32 {
            for mut code in 0..n.pow(len) {
                input.clear();
                for _ in 0..len {
                    input.push(alphabet[code % n]);
                    code /= n;
                }
                check_invariants(&input);
            }
        }
    }

    #[test]
    fn large_inputs_are_linear() {
        let cases = [
            format!(
                "<p>{}</p>",
                "long text with <code>code</code> &amp; <a href=\"https://example.com\">link</a> "
                    .repeat(2000)
            ),
            "<".repeat(100_000),
            "<a ".repeat(40_000),
            "<a x=\"".repeat(20_000),
            "<a x='\"".repeat(20_000),
            format!("<a x=\"{}", "<b ".repeat(40_000)),
            format!("<a{}", " ".repeat(100_000)),
            "<!--".repeat(30_000),
            "&".repeat(100_000),
            "&amp".repeat(30_000),
            "https://".repeat(15_000),
            "h".repeat(100_000),
            "[".repeat(100_000),
            "[x](".repeat(30_000),
            "`".repeat(100_000),
            "` `` ``` ".repeat(10_000),
            "<code>".repeat(20_000),
            "<a href=\"https://example.com\">".repeat(5_000),
            "<ul><li>".repeat(10_000),
            "1".repeat(100_000) + ".",
            "_a".repeat(50_000),
            format!("https://a{}", ")".repeat(100_000)),
            format!("https://a{}", ".,;:".repeat(25_000)),
            "<https://a.example.com/ ".repeat(10_000),
        ];
        for input in &cases {
            let start = std::time::Instant::now();
            check_invariants(input);
            assert!(
                start.elapsed() < std::time::Duration::from_secs(2),
                "{:?}… took {:?}",
                &input[..20],
                start.elapsed()
            );
        }
    }
}
