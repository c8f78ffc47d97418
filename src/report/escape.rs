//! HTML escaping, for the HTML page and for the HTML that Markdown embeds (`<summary>` lines):
//! one escaper, so both writers escape the same characters the same way.

/// Text escaped for HTML element content and for quoted attribute values (either quote).
pub fn html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_and_quotes_are_escaped() {
        assert_eq!(
            html("<a href='x' title=\"y\">&</a>\n"),
            "&lt;a href=&#39;x&#39; title=&quot;y&quot;&gt;&amp;&lt;/a&gt;\n"
        );
    }
}
