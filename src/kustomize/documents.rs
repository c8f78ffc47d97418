//! How kustomize cuts a YAML file into objects (kyaml's `ByteReader`). The text is split at
//! every line that starts with `---` (anything else on that line must be a comment), and only
//! the first document of each piece is read: a `...` end marker or a second JSON object on the
//! next line hides what follows it, and a `%YAML` directive before the first `---` is an error.

use crate::yaml::{self, Node, ParseOptions, Span, YamlError, YamlErrorKind};

/// The documents kustomize reads from a file, empty and null ones dropped, positions relative
/// to the whole file.
pub fn read_documents(bytes: &[u8], opts: &ParseOptions) -> Result<Vec<Node>, YamlError> {
    Ok(read_documents_counted(bytes, opts)?.0)
}

/// Like [`read_documents`], with the number of pieces the file was cut into (empty ones
/// included): kyaml unwraps a `List` without going through JSON only when there is one.
pub fn read_documents_counted(
    bytes: &[u8],
    opts: &ParseOptions,
) -> Result<(Vec<Node>, usize), YamlError> {
    let crlf = memchr::memmem::find(bytes, b"\r\n").is_some();
    let text: std::borrow::Cow<'_, [u8]> = if crlf {
        String::from_utf8_lossy(bytes)
            .replace("\r\n", "\n")
            .into_bytes()
            .into()
    } else {
        bytes.into()
    };
    // kyaml reads each piece with go-yaml v3.
    let opts = &ParseOptions {
        go_yaml_v3_comments: true,
        ..*opts
    };
    let mut docs = Vec::new();
    let pieces = split(&text)?;
    let count = pieces.len();
    for (piece, first_line) in pieces {
        let parsed = yaml::parse_first(piece, opts).map_err(|mut e| {
            e.shift_lines(first_line);
            e
        })?;
        if let Some(mut doc) = parsed.filter(|d| !d.is_nil_or_empty()) {
            doc.shift_lines(first_line);
            docs.push(doc);
        }
    }
    Ok((docs, count))
}

/// The text of a patch file. go-yaml reads UTF-16 with a byte order mark (what Windows
/// PowerShell writes), so kustomize takes such a patch as its UTF-16 text says.
pub fn patch_text(bytes: &[u8]) -> String {
    let utf16 = |be: bool| {
        let units = bytes[2..].chunks_exact(2).map(|c| {
            if be {
                u16::from_be_bytes([c[0], c[1]])
            } else {
                u16::from_le_bytes([c[0], c[1]])
            }
        });
        char::decode_utf16(units)
            .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect::<String>()
            .replace("\r\n", "\n")
    };
    match bytes {
        [0xff, 0xfe, ..] => utf16(false),
        [0xfe, 0xff, ..] => utf16(true),
        _ => String::from_utf8_lossy(bytes).into_owned(),
    }
}

/// kyaml `splitDocuments` (separators match `\n---.*\n`), with the line each piece starts on
/// (0-based). Every piece but the last gets back the newline the split took.
fn split(text: &[u8]) -> Result<Vec<(&[u8], u32)>, YamlError> {
    let mut pieces = Vec::new();
    let (mut start, mut start_line, mut line) = (0, 0, 0u32);
    let mut from = 0;
    while let Some(i) = memchr::memchr(b'\n', &text[from..]).map(|p| from + p) {
        from = i + 1;
        line += 1;
        if !text[i + 1..].starts_with(b"---") {
            continue;
        }
        let Some(end) = memchr::memchr(b'\n', &text[i + 1..]).map(|p| i + 1 + p) else {
            continue;
        };
        let separator = String::from_utf8_lossy(&text[i + 1..end]);
        let rest = separator[3..].trim();
        if !rest.is_empty() && !rest.starts_with('#') {
            let message = format!("invalid document separator: {}", separator.trim());
            return Err(YamlError {
                kind: YamlErrorKind::Syntax,
                span: Span::new(line + 1, 1),
                go_message: Some(message.clone()),
                go_line: None,
                message,
                duplicate: None,
            });
        }
        // The piece ends with the line break before the separator.
        pieces.push((&text[start..=i], start_line));
        line += 1;
        start = end + 1;
        start_line = line;
        from = end + 1;
    }
    pieces.push((&text[start..], start_line));
    Ok(pieces)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(text: &str) -> Vec<String> {
        read_documents(text.as_bytes(), &ParseOptions::default())
            .unwrap()
            .iter()
            .map(|d| d.str_at(&["name"]).unwrap_or("?").to_string())
            .collect()
    }

    /// Expected results from kubectl kustomize (testdata/kustomize/65-how-files-split-into-objects).
    #[test]
    fn only_the_first_document_of_each_piece_counts() {
        assert_eq!(names("name: a\n---\nname: b\n"), ["a", "b"]);
        assert_eq!(names("name: a\n...\nname: b\n"), ["a"]);
        assert_eq!(names("{\"name\": \"a\"}\n{\"name\": \"b\"}\n"), ["a"]);
        assert_eq!(names("name: a\n---#c\nname: b\n"), ["a", "b"]);
        assert_eq!(names("---\nname: a\n---\n---\nname: b\n"), ["a", "b"]);
        assert_eq!(names("name: a\r\n---\r\nname: b\r\n"), ["a", "b"]);
    }

    #[test]
    fn positions_are_in_the_whole_file() {
        let docs = read_documents(b"a: 1\n---\n\nb: 2\n", &ParseOptions::default()).unwrap();
        assert_eq!(docs[1].get_entry("b").unwrap().0.span.line, 4);
        let err = read_documents(b"a: 1\n---\nb: [\n", &ParseOptions::default()).unwrap_err();
        assert!(err.span.line >= 3, "{err:?}");
    }

    /// Both lines of a duplicate key count in the file, not in the document: the same key in
    /// an earlier document is not the one named.
    #[test]
    fn a_duplicate_key_in_a_later_document_names_lines_of_the_file() {
        let text =
            "metadata:\n  labels: {}\n---\nmetadata:\n  name: b\n  labels: {}\n  labels: {}\n";
        let err = read_documents(text.as_bytes(), &ParseOptions::default()).unwrap_err();
        assert_eq!(err.kind, YamlErrorKind::DuplicateKey);
        assert_eq!(err.span.line, 7);
        assert_eq!(
            err.duplicate.as_ref().map(|d| d.first.line),
            Some(6),
            "{err:?}"
        );
        assert_eq!(
            err.message,
            "mapping key \"labels\" already defined at line 6"
        );
    }

    #[test]
    fn separators_carry_only_comments() {
        let err = read_documents(b"a: 1\n--- !!map\nb: 2\n", &ParseOptions::default()).unwrap_err();
        assert_eq!(
            err.go_message.as_deref(),
            Some("invalid document separator: --- !!map")
        );
        assert_eq!(err.span.line, 2);
        let err = read_documents(b"%YAML 1.1\n---\na: 1\n", &ParseOptions::default()).unwrap_err();
        assert_eq!(
            err.go_message.as_deref(),
            Some("yaml: line 1: did not find expected <document start>")
        );
    }
}
