//! TEMPORARY stand-in until the real converter lands.

/// Doc lines.
pub(crate) fn doc_lines(html: &str) -> Vec<String> {
    let mut out = String::new();
    let mut in_tag = false;
    for c in html.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag && (c.is_alphanumeric() || c == ' ' || c == '.' || c == ',') => {
                out.push(c)
            }
            _ => {}
        }
    }
    let out = out.split_whitespace().collect::<Vec<_>>().join(" ");
    if out.is_empty() {
        Vec::new()
    } else {
        vec![out]
    }
}
