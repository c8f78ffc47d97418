//! kustomize prints every object through Go's JSON and go-yaml: what either refuses fails
//! the build. The checks here find such objects with kustomize's messages; a single walk
//! that allocates nothing first clears the objects that surely pass (nearly all), because the
//! checks one by one took a fifth of a large repository's render time.

use super::error::KError;
use super::res::Res;
use crate::finding::rules;
use crate::yaml::{
    plain_is_surely_string, resolve_scalar, Dialect, Node, NodeKind, Resolved, Scalar, ScalarStyle,
};

/// kustomize prints every object through Go's JSON: a value that does not fit its tag (a
/// replacement writing `Prefix` over `flag: true`), NaN or infinity, or a mapping key that is not
/// a string fails the build.
pub(super) fn check(r: &Res) -> Result<(), KError> {
    check_metadata(r)?;
    if surely_printable(&r.node) {
        return Ok(());
    }
    check_each(r)
}

/// kyaml's GetValidatedMetadata, which kustomize runs on every object it keeps.
fn check_metadata(r: &Res) -> Result<(), KError> {
    let kind_missing = r
        .node
        .get("kind")
        .and_then(crate::yaml::Node::as_text)
        .is_none_or(str::is_empty);
    let name_missing = r
        .node
        .get_path(&["metadata", "name"])
        .and_then(crate::yaml::Node::as_text)
        .is_none_or(str::is_empty);
    if kind_missing || (name_missing && !r.kind().ends_with("List")) {
        let what = if kind_missing {
            "kind"
        } else {
            "metadata.name"
        };
        return Err(KError::new(
            rules::KUSTOMIZE_OUTPUT,
            format!("missing {what} in object {}", r.cur_id()),
        )
        .at(&r.origin.file, r.origin.span));
    }
    Ok(())
}

/// Each check in turn, for the first failure's own message.
fn check_each(r: &Res) -> Result<(), KError> {
    if let Err(e) = crate::yaml::to_value(&r.node, crate::yaml::Dialect::Yaml12) {
        return Err(
            KError::new(rules::KUSTOMIZE_OUTPUT, format!("{}: {e}", r.cur_id()))
                .at(&r.origin.file, r.origin.span),
        );
    }
    if let Some(key) = duplicate_key(&r.node) {
        // The key's own position is in the patch file, which the finding cannot name.
        return Err(KError::new(
            rules::YAML_DUPLICATE_KEY,
            format!(
                "{}: a patch gave a mapping the same key twice: yaml: unmarshal errors: mapping key {:?} already defined",
                r.cur_id(),
                crate::yaml::key_text(key),
            ),
        )
        .at(&r.origin.file, r.origin.span));
    }
    if crate::yaml::roundtrip::unreadable_block(&r.node).is_some() {
        return Err(KError::new(
            rules::KUSTOMIZE_OUTPUT,
            format!(
                "{}: a block scalar starts with a tab, which go-yaml writes without an indentation indicator and cannot read back: yaml: found a tab character where an indentation space is expected",
                r.cur_id()
            ),
        )
        .at(&r.origin.file, r.origin.span));
    }
    if let Some(key) = crate::yaml::roundtrip::key_too_long_for_json(&r.node) {
        return Err(KError::new(
            rules::KUSTOMIZE_OUTPUT,
            format!(
                "{}: a key of {} characters is too long for go-yaml to read back from Go's JSON: yaml: did not find expected ',' or '}}'",
                r.cur_id(),
                crate::yaml::key_text(key).chars().count()
            ),
        )
        .at(&r.origin.file, r.origin.span));
    }
    if let Some(text) = unreadable_text(&r.node) {
        return Err(KError::new(
            rules::KUSTOMIZE_OUTPUT,
            format!(
                "{}: {text:?} holds a character YAML does not allow (DEL, a C1 control, U+FFFE or U+FFFF), which Go's JSON leaves unescaped: yaml: control characters are not allowed",
                r.cur_id()
            ),
        )
        .at(&r.origin.file, r.origin.span));
    }
    if let Some((key, reads_as)) = crate::yaml::non_string_key(&r.node) {
        let span = if key.span.is_known() {
            key.span
        } else {
            r.origin.span
        };
        return Err(KError::new(
            rules::KUSTOMIZE_NON_STRING_KEY,
            format!(
                "the key {:?} of {} reads as {reads_as}, not a string: json: unsupported type: map[interface {{}}]interface {{}} (quote the key)",
                crate::yaml::key_text(key),
                r.cur_id()
            ),
        )
        .at(&r.origin.file, span));
    }
    Ok(())
}

/// The second of two equal keys in a mapping under `node`: a strategic-merge patch copies a
/// subtree whole, and go-yaml then fails to decode the object.
fn duplicate_key(node: &Node) -> Option<&Node> {
    match &node.kind {
        NodeKind::Scalar(_) => None,
        NodeKind::Seq(items) => items.iter().find_map(duplicate_key),
        NodeKind::Map(entries) => {
            let mut seen = std::collections::HashSet::new();
            entries
                .iter()
                .find(|(k, _)| k.as_str().is_some_and(|t| !seen.insert(t)))
                .map(|(k, _)| k)
                .or_else(|| entries.iter().find_map(|(_, v)| duplicate_key(v)))
        }
    }
}

/// The first key or string under `node` that go-yaml refuses to read back from Go's JSON.
fn unreadable_text(node: &Node) -> Option<&str> {
    let bad = crate::yaml::roundtrip::unreadable_from_json;
    match &node.kind {
        NodeKind::Scalar(s) => bad(&s.text).then_some(s.text.as_str()),
        NodeKind::Seq(items) => items.iter().find_map(unreadable_text),
        NodeKind::Map(entries) => entries
            .iter()
            .find_map(|(k, v)| k.as_str().filter(|t| bad(t)).or_else(|| unreadable_text(v))),
    }
}

/// True when `node` passes every check of [`check_each`]; false when one may fail (then they
/// run). Conservative where being exact would cost: a scalar that starts with a tab, a key
/// over 170 bytes or a number with an exponent is left to the checks.
fn surely_printable(node: &Node) -> bool {
    match &node.kind {
        NodeKind::Scalar(s) => value_surely_fine(s),
        NodeKind::Seq(items) => items.iter().all(surely_printable),
        NodeKind::Map(entries) => {
            entries
                .iter()
                .all(|(k, v)| key_surely_fine(k) && surely_printable(v))
                && Node::keys_distinct(entries)
        }
    }
}

/// A scalar that surely converts to JSON (its tag fits, not NaN or infinity), that go-yaml
/// writes as it can read back (no leading tab) and holds no character YAML refuses.
fn value_surely_fine(s: &Scalar) -> bool {
    if s.text.starts_with('\t') || crate::yaml::roundtrip::unreadable_from_json(&s.text) {
        return false;
    }
    match (s.tag.as_deref(), s.style) {
        (None, ScalarStyle::Plain) => !may_be_non_finite(&s.text),
        (None, _) | (Some("!!str"), _) => true,
        // What `to_value` asks of it (a tagged scalar is rare: a JSON patch tags its values).
        _ => match resolve_scalar(s, Dialect::Yaml12) {
            Ok(Resolved::Float(f)) => f.is_finite(),
            Ok(_) => true,
            Err(_) => false,
        },
    }
}

/// A plain scalar that may resolve to a float NaN or infinity (`.inf`, `-.Inf`, `.NaN`,
/// `1e400`, a 400-digit number); false for nearly all others (`.spec.image`, `-1`), found
/// from a few bytes.
fn may_be_non_finite(text: &str) -> bool {
    let unsigned = text.strip_prefix(['+', '-']).unwrap_or(text);
    let digits =
        || text.len() > 300 || text.bytes().any(|b| matches!(b, b'e' | b'E' | b'p' | b'P'));
    match unsigned.as_bytes() {
        [b'.', b'i' | b'I' | b'n' | b'N', ..] => true,
        [b'.', b'0'..=b'9', ..] | [b'0'..=b'9', ..] => digits(),
        _ => false,
    }
}

/// A mapping key that surely reads as a string, fits go-yaml's JSON key limit and is safe as
/// a value too.
fn key_surely_fine(k: &Node) -> bool {
    let NodeKind::Scalar(s) = &k.kind else {
        return false;
    };
    let reads_as_string = match (s.tag.as_deref(), s.style) {
        (None, ScalarStyle::Plain) => plain_is_surely_string(&s.text, Dialect::Yaml12),
        (None, _) | (Some("!!str"), _) => true,
        _ => matches!(
            resolve_scalar(s, Dialect::Yaml12),
            Ok(Resolved::Str(_) | Resolved::Timestamp(_))
        ),
    };
    // Go's JSON writes a character as at most 6, quotes add 2: 170 bytes stay under 1,024.
    reads_as_string && s.text.len() <= 170 && value_surely_fine(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kustomize::schema::BuildSchema;
    use crate::resource::Origin;
    use crate::yaml::{parse_one, DuplicateKeys, ParseOptions};

    fn res(body: &str) -> Res {
        let text = format!("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: cm\n{body}");
        // Keys kept twice, as a strategic-merge patch can leave them.
        let opts = ParseOptions {
            duplicate_keys: DuplicateKeys::Keep,
            ..ParseOptions::default()
        };
        let node = parse_one(text.as_bytes(), &opts).unwrap();
        Res::new(node, Origin::default(), BuildSchema::new())
    }

    /// Objects each check refuses: the quick walk must leave every one of them to the checks.
    const REFUSED: &[&str] = &[
        "data: {a: .inf}\n",
        "data: {a: .NaN}\n",
        "data: {a: !!float .inf}\n",
        "data: {a: +.INF}\n",
        "data: {a: -.Inf}\n",
        "data: {a: !!int abc}\n",
        "data: {a: !!bool Prefix}\n",
        "data:\n  a: 1\n  a: 2\n",
        "data:\n  a: |2\n    \tstarts with a tab\n",
        "data: {a: \"del \\x7f\"}\n",
        "data: {a: \"c1 \\u0086\"}\n",
        "data: {\"\\uFFFE\": b}\n",
        "data: {1: b}\n",
        "data: {true: b}\n",
        "data: {null: b}\n",
        "data: {~: b}\n",
        "data: {? [a]: b}\n",
        "data: {!!int 7: b}\n",
    ];

    #[test]
    fn objects_a_check_refuses_are_never_cleared_by_the_quick_walk() {
        for body in REFUSED {
            let r = res(body);
            assert!(check_each(&r).is_err(), "{body:?} should be refused");
            assert!(!surely_printable(&r.node), "{body:?} was cleared");
            assert!(check(&r).is_err(), "{body:?} passed the check");
        }
        let long_key = format!("data:\n  ? {}\n  : b\n", "k".repeat(1030));
        assert!(check_each(&res(&long_key)).is_err());
        assert!(!surely_printable(&res(&long_key).node));
        // Many keys take the hashed path of the duplicate check.
        let many: String = (0..40).map(|i| format!("  k{i}: v\n")).collect();
        let duplicated = format!("data:\n{many}  k7: again\n");
        assert!(check_each(&res(&duplicated)).is_err());
        assert!(!surely_printable(&res(&duplicated).node));
        assert!(surely_printable(&res(&format!("data:\n{many}")).node));
    }

    #[test]
    fn ordinary_objects_are_cleared_and_pass_the_checks() {
        for body in [
            "data: {a: '1', b: \"x\", c: 1.5, d: -10, e: true, f: ~, g: 2020-01-01}\n",
            "data: {yes: no, name: true, type: null}\n",
            "spec: {jsonPath: .status.phase, a: -.x, b: !!int 80, c: !!bool true, d: !!null ~}\n",
            "spec:\n  containers:\n  - name: app\n    image: nginx:1.25\n    args: [--a, -b]\n",
            "data: {text: \"snowman \u{2603} and accents é\", 'quoted: key': v, \"1\": one}\n",
            "data:\n  script: |\n    #!/bin/sh\n    echo hi\n",
        ] {
            let r = res(body);
            assert!(surely_printable(&r.node), "{body:?} was not cleared");
            assert!(check_each(&r).is_ok(), "{body:?} is refused by a check");
        }
    }

    #[test]
    fn what_may_be_refused_is_checked_the_long_way_and_can_pass() {
        // Conservative: these may resolve to a non-string key or a non-finite float, so the
        // quick walk leaves them to the checks, which accept them.
        for body in [
            "data: {a: -1.5e3}\n",
            "data: {-x: b}\n",
            "data: {a: .5e3}\n",
        ] {
            let r = res(body);
            assert!(!surely_printable(&r.node), "{body:?}");
            assert!(check(&r).is_ok(), "{body:?}");
        }
    }
}
