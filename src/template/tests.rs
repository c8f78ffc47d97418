//! Unit tests of the engine on its own (the probe corpora run in tests/template_probes.rs).

use super::*;
use std::collections::{BTreeMap, HashMap};

fn run(text: &str, dot: &Value, missing: MissingKey) -> Result<String, Error> {
    let mut set = TemplateSet::new(
        Funcs::builtin(),
        Options {
            missing_key: missing,
            ..Options::default()
        },
    );
    set.parse("t", text)?;
    set.execute("t", dot)
}

fn dot() -> Value {
    let json =
        serde_json::json!({"s": "hello", "l": ["a", "b"], "m": {"b": 2, "a": 1}, "nil": null});
    Value::from(json)
}

#[test]
fn control_structures() {
    let d = dot();
    let ok = |t: &str| run(t, &d, MissingKey::Default).unwrap();
    assert_eq!(
        ok("{{ range $i, $v := .l }}{{ $i }}={{ $v }};{{ end }}"),
        "0=a;1=b;"
    );
    assert_eq!(
        ok("{{ range $k, $v := .m }}{{ $k }}{{ $v }}{{ end }}"),
        "a1b2"
    );
    assert_eq!(ok("{{ if .nope }}x{{ else if .s }}y{{ end }}"), "y");
    assert_eq!(ok("{{ with .s }}{{ . }}{{ end }}"), "hello");
    assert_eq!(
        ok("{{ $x := 1 }}{{ if true }}{{ $x = 2 }}{{ end }}{{ $x }}"),
        "2"
    );
    assert_eq!(ok("a  {{- 1 -}}  b"), "a1b");
    assert_eq!(ok("{{ .missing }}"), "<no value>");
    assert_eq!(
        ok("{{ define \"T\" }}[{{ . }}]{{ end }}{{ template \"T\" .s }}"),
        "[hello]"
    );
}

#[test]
fn errors_are_worded_as_go_words_them() {
    let d = dot();
    let e = run("{{ .missing.deeper }}", &d, MissingKey::Zero).unwrap_err();
    assert_eq!(
        e.to_string(),
        "template: t:1:11: executing \"t\" at <.missing.deeper>: nil pointer evaluating interface {}.deeper"
    );
    let e = run("{{ nosuch 1 }}", &d, MissingKey::Default).unwrap_err();
    assert_eq!(
        e.to_string(),
        "template: t:1: function \"nosuch\" not defined"
    );
    let e = run("{{ eq 1 2.0 }}", &d, MissingKey::Default).unwrap_err();
    assert_eq!(
        e.to_string(),
        "template: t:1:3: executing \"t\" at <eq 1 2.0>: error calling eq: incompatible types for comparison"
    );
}

#[test]
fn actions_are_lexed_as_go_lexes_them() {
    let d = dot();
    let err = |t: &str| run(t, &d, MissingKey::Default).unwrap_err().to_string();
    // Go looks for the right delimiter, with or without its trim marker, before anything
    // else (helm v3.17.3: `parse error at (…:1): unclosed left paren`).
    assert_eq!(err("{{ (len . -}}"), "template: t:1: unclosed left paren");
    assert_eq!(err("{{ (len .  -}}"), "template: t:1: unclosed left paren");
    assert_eq!(err("{{ (len . }}"), "template: t:1: unclosed left paren");
    assert_eq!(
        err("{{ \"a\\\" }}"),
        "template: t:1: unterminated quoted string"
    );
    assert_eq!(
        err("{{ \"a\nb\" }}"),
        "template: t:1: unterminated quoted string"
    );
    // Escapes and other scripts in strings, names in other scripts, trim markers.
    assert_eq!(
        run(
            "{{ \"é\\\"ü\" }}|{{- 'ß' -}}  |{{ $ñ := 1 }}{{ $ñ }}{{ `raw\"` }}",
            &d,
            MissingKey::Default
        )
        .unwrap(),
        "é\"ü|223|1raw\""
    );
}

#[test]
fn a_piped_value_of_the_wrong_type_is_worded_as_go_words_it() {
    // Recorded with helm v3.17.3 (`--set num=5`, missingkey=zero): the error names the node
    // evaluated last, the command's last argument; a nil piped is an invalid value.
    let err = |text: &str| {
        let mut set = TemplateSet::new(
            Funcs::helm(),
            Options {
                missing_key: MissingKey::Zero,
                ..Options::default()
            },
        );
        set.parse("t", text).unwrap();
        let dot = Value::from(serde_json::json!({"num": 5.0}));
        set.execute("t", &dot).unwrap_err().to_string()
    };
    assert_eq!(
        err("a: {{ .missing | trunc 63 }}"),
        "template: t:1:23: executing \"t\" at <63>: invalid value; expected string"
    );
    assert_eq!(
        err("a: {{ .num | trunc 63 }}"),
        "template: t:1:19: executing \"t\" at <63>: wrong type for value; expected string; got float64"
    );
    assert_eq!(
        err("a: {{ .missing | trunc (len \"abc\") }}"),
        "template: t:1:28: executing \"t\" at <\"abc\">: invalid value; expected string"
    );
    // No argument: the function's own node; an argument's nil is still `interface {}`.
    assert_eq!(
        err("a: {{ .missing | upper }}"),
        "template: t:1:17: executing \"t\" at <upper>: invalid value; expected string"
    );
    assert_eq!(
        err("a: {{ trunc 63 .missing }}"),
        "template: t:1:15: executing \"t\" at <.missing>: wrong type for value; expected string; got interface {}"
    );
}

#[test]
fn errors_carry_their_location_as_fields() {
    let at = |template: &str, line, column| Location {
        template: template.into(),
        line,
        column,
    };
    // Parse errors: Go gives the line only.
    let e = run("a\n{{ if }}", &dot(), MissingKey::Default).unwrap_err();
    assert_eq!(e.location(), Some(&at("t", 2, None)));
    assert_eq!(e.to_string(), "template: t:2: missing value for if");

    // An execution error in a `define`d template names the text it was parsed from.
    let mut set = TemplateSet::new(Funcs::helm(), Options::default());
    set.parse(
        "c/templates/_helpers.tpl",
        "{{ define \"inner\" }}\n  {{ fail \"no\" }}{{ end }}",
    )
    .unwrap();
    set.parse("c/templates/x.yaml", "a: 1\nb: {{ template \"inner\" . }}")
        .unwrap();
    let e = set.execute("c/templates/x.yaml", &dot()).unwrap_err();
    let ErrorKind::Exec {
        at: location,
        executing,
        node,
        ..
    } = e.kind()
    else {
        panic!("an execution error: {e:?}");
    };
    assert_eq!(*location, at("c/templates/_helpers.tpl", 2, Some(5)));
    assert_eq!(
        (executing.as_str(), node.as_str()),
        ("inner", "fail \"no\"")
    );

    // `include` wraps the nested error: the location is the outermost one, where the
    // message starts.
    set.parse(
        "c/templates/y.yaml",
        "a: 1\nb:\n  {{- include \"inner\" . | nindent 2 }}",
    )
    .unwrap();
    let e = set.execute("c/templates/y.yaml", &dot()).unwrap_err();
    assert_eq!(e.location(), Some(&at("c/templates/y.yaml", 3, Some(6))));
    assert!(
        e.to_string().starts_with(
            "template: c/templates/y.yaml:3:6: executing \"c/templates/y.yaml\" at <include \"inner\" .>: error calling include: template: c/templates/_helpers.tpl:2:5: "
        ),
        "{e}"
    );

    let e = set.execute("nowhere", &dot()).unwrap_err();
    assert_eq!(e.location(), None);
    assert_eq!(
        e.to_string(),
        "template: no template \"nowhere\" associated with template \"c/templates/_helpers.tpl\""
    );
}

#[test]
fn runaway_templates_end_with_an_error() {
    let d = dot();
    let mut set = TemplateSet::new(
        Funcs::builtin(),
        Options {
            max_depth: 50,
            ..Options::default()
        },
    );
    set.parse(
        "t",
        "{{ define \"r\" }}{{ template \"r\" . }}{{ end }}{{ template \"r\" . }}",
    )
    .unwrap();
    let e = set.execute("t", &d).unwrap_err().to_string();
    assert!(e.contains("exceeded maximum template depth (50)"), "{e}");
}

/// Recursion deeper than the thread's stack budget continues on threads with stacks of their
/// own (Go grows its stacks) until Go's own depth limit; with no such thread allowed it ends
/// with kdelta's error. Never a stack overflow, on a thread with a small stack.
#[test]
fn deep_recursion_continues_past_the_thread_stack() {
    let recurse = |segments: usize| {
        std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn(move || {
                let mut set = TemplateSet::new(
                    Funcs::helm(),
                    Options {
                        max_depth: 5_000,
                        max_stack: 512 << 10,
                        max_stack_segments: segments,
                        ..Options::default()
                    },
                );
                set.parse(
                    "t",
                    "{{ define \"r\" }}{{ include \"x\" . }}{{ template \"r\" . }}{{ end }}\
                     {{ define \"x\" }}{{ end }}{{ template \"r\" . }}",
                )
                .unwrap();
                set.execute("t", &dot()).unwrap_err().to_string()
            })
            .expect("a thread starts")
            .join()
            .expect("no panic")
    };
    let e = recurse(16);
    assert!(e.contains("exceeded maximum template depth (5000)"), "{e}");
    let e = recurse(0);
    assert!(
        e.contains("templates nested deeper than kdelta's stack allows"),
        "{e}"
    );
}

#[test]
fn hostile_nesting_is_an_error_not_an_overflow() {
    let d = dot();
    let deep_ifs = format!(
        "{}x{}",
        "{{ if true }}".repeat(5000),
        "{{ end }}".repeat(5000)
    );
    let e = run(&deep_ifs, &d, MissingKey::Default)
        .unwrap_err()
        .to_string();
    assert!(e.contains("max expression depth exceeded"), "{e}");
    let deep_parens = format!("{{{{ {}1{} }}}}", "(".repeat(5000), ")".repeat(5000));
    let e = run(&deep_parens, &d, MissingKey::Default)
        .unwrap_err()
        .to_string();
    assert!(e.contains("max expression depth exceeded"), "{e}");
    let unclosed = "{{ if true }}".repeat(3);
    assert!(run(&unclosed, &d, MissingKey::Default).is_err());
}

#[test]
fn multibyte_text_is_cut_where_go_cuts_its_bytes() {
    let d = dot();
    let run_sprig = |t: &str| {
        let mut set = TemplateSet::new(Funcs::sprig(), Options::default());
        set.parse("t", t).unwrap();
        set.execute("t", &d)
    };
    // Go cuts at byte 3, inside the second é: its first byte is kept, as a Go string keeps it.
    let cut = run_sprig("{{ abbrev 6 \"éééééé\" }}").unwrap();
    assert_eq!(&*crate::template::gostr::to_bytes(&cut), b"\xc3\xa9\xc3...");
    let e = run_sprig("{{ mustRegexMatch \"(?é\" \"x\" }}")
        .unwrap_err()
        .to_string();
    assert!(e.contains("error calling mustRegexMatch"), "{e}");
    let e = run_sprig("{{ mustRegexMatch \"a\\\\é\" \"x\" }}")
        .unwrap_err()
        .to_string();
    assert!(e.contains("error calling mustRegexMatch"), "{e}");
}

#[test]
fn the_parse_cache_keys_on_the_function_set_and_the_delimiters() {
    let text = "{{ upper .x }}";
    let mut sprig = TemplateSet::new(Funcs::sprig(), Options::default());
    sprig.parse("cached", text).unwrap();
    // The same name and text, parsed by a set without `upper`, is that set's error.
    let mut plain = TemplateSet::new(Funcs::builtin(), Options::default());
    let e = plain.parse("cached", text).unwrap_err().to_string();
    assert!(e.contains("function \"upper\" not defined"), "{e}");
    // Other delimiters read the same text as plain text.
    let mut other = TemplateSet::new(
        Funcs::sprig(),
        Options {
            left_delim: "[[".into(),
            right_delim: "]]".into(),
            ..Options::default()
        },
    );
    other.parse("cached", text).unwrap();
    let dot = Value::map([("x".to_string(), Value::str("a"))].into_iter().collect());
    assert_eq!(other.execute("cached", &dot).unwrap(), text);
    let mut again = TemplateSet::new(Funcs::sprig(), Options::default());
    again.parse("cached", text).unwrap();
    assert_eq!(again.execute("cached", &dot).unwrap(), "A");
}

#[test]
fn texts_the_parse_cache_samples_alike_keep_their_own_parses() {
    // Same length, same start, middle and end (what the cache key samples): the action that
    // differs is outside the samples.
    let text = |field: &str| {
        let mut t = format!("{}{{{{ .{field} }}}}", "-".repeat(700));
        t.push_str(&"-".repeat(3000 - t.len()));
        t
    };
    let (a, b) = (text("a"), text("b"));
    assert_eq!(a.len(), b.len());
    let dot = Value::map(
        [("a", "A"), ("b", "B")]
            .into_iter()
            .map(|(k, v)| (k.to_string(), Value::str(v)))
            .collect(),
    );
    for _ in 0..2 {
        for (text, want) in [(&a, "A"), (&b, "B")] {
            let mut set = TemplateSet::new(Funcs::sprig(), Options::default());
            set.parse("sampled", text).unwrap();
            let out = set.execute("sampled", &dot).unwrap();
            assert_eq!(out.trim_matches('-'), want);
        }
    }
}

#[test]
fn a_parse_ahead_is_found_by_the_run_and_one_under_way_is_not_waited_for() {
    let set = TemplateSet::new(Funcs::sprig(), Options::default());
    let parser = set.parser();
    let ahead: Arc<str> = Arc::from("{{ define \"ahead.x\" }}{{ .a }}{{ end }}ahead");
    parser.parse_unclaimed("ahead", &ahead);
    let found = set.parse_cached("ahead", &ahead);
    assert!(Arc::ptr_eq(&found, &set.parse_cached("ahead", &ahead)));
    // Parsed ahead once: a second parse ahead finds the entry and leaves it.
    parser.parse_unclaimed("ahead", &ahead);
    assert!(Arc::ptr_eq(&found, &set.parse_cached("ahead", &ahead)));
    // An entry claimed on another core that never finished (it is parsing still, or its
    // parse panicked): the run parses the text itself rather than wait.
    let stuck: Arc<str> = Arc::from("{{ .b }}stuck");
    let cell = set.cache_cell("stuck", &stuck).expect("the cache has room");
    assert!(cell.claimed);
    let mut run = TemplateSet::new(Funcs::sprig(), Options::default());
    run.parse_shared("stuck", &stuck).unwrap();
    let dot = Value::map([("b".to_string(), Value::str("B"))].into_iter().collect());
    assert_eq!(run.execute("stuck", &dot).unwrap(), "Bstuck");
    assert!(
        cell.result.get().is_some(),
        "the run's parse fills the entry"
    );
}

/// A missing value passed to a function that takes `reflect.Value` (`not`, `and`, `or`) is
/// accepted, as Go's `canBeNil` accepts it for that type: `not (or .missing)` is true, under
/// Go's default and under Helm's `missingkey=zero` alike.
#[test]
fn a_missing_value_is_a_valid_reflect_value_argument() {
    let d = dot();
    for missing in [MissingKey::Default, MissingKey::Zero] {
        let ok = |t: &str| run(t, &d, missing).unwrap();
        assert_eq!(ok("{{ not (or .missing) }}"), "true");
        assert_eq!(ok("{{ not (or false .m.missing) }}"), "true");
        assert_eq!(ok("{{ not (and true .missing) }}"), "true");
        assert_eq!(ok("{{ (or .missing) | not }}"), "true");
    }
}

#[test]
fn templates_run_side_by_side_up_to_the_first_that_writes_a_shared_map() {
    let mut set = TemplateSet::new(Funcs::helm(), Options::default());
    let templates = [
        ("reads", "{{ .shared.k | default \"unset\" }}"),
        ("local", "{{ $m := dict }}{{ $_ := set $m \"k\" 1 }}{{ $_ := merge $m (dict \"j\" 2) }}{{ $m.k }}{{ $m.j }}"),
        ("writes", "{{ $_ := set .shared \"k\" \"v\" }}written{{ .shared.k }}"),
        ("writes-too", "{{ $_ := set .shared \"j\" \"w\" }}written too"),
        ("after", "{{ .shared.k }}"),
        ("fails", "{{ fail \"no\" }}"),
        ("map", "{{ $_ := set .shared \"k\" (dict) }}map"),
        ("dot", "{{ $_ := set . \"k\" \"v\" }}dot"),
    ];
    for (name, text) in templates {
        set.parse(name, text).unwrap();
    }
    let shared = Dict::new(BTreeMap::new());
    let dot = Value::map(BTreeMap::from([(
        "shared".to_string(),
        Value::Map(shared.clone()),
    )]));
    // `then` sees each output on its core; what it makes comes back with it.
    let side_by_side = |names: &[&str]| {
        set.render_independent(
            names,
            |_| dot.clone(),
            |i, r: &mut Rendered| (i, r.text.len()),
        )
    };
    let texts = |independent: Independent<(usize, usize)>| -> (Vec<String>, bool) {
        let texts = independent
            .outcomes
            .into_iter()
            .enumerate()
            .map(|(at, o)| {
                o.map_or_else(
                    |e| format!("error: {e}"),
                    |(r, made)| {
                        assert_eq!(made, (at, r.text.len()));
                        r.text
                    },
                )
            })
            .collect();
        (texts, independent.last_wrote.is_some())
    };

    // Nothing shared written: every outcome; an error ends the prefix, as it ends Go's run.
    assert_eq!(
        texts(side_by_side(&["local", "reads"])),
        (vec!["12".to_string(), "unset".to_string()], false)
    );
    let (outs, wrote) = texts(side_by_side(&["reads", "fails", "local"]));
    assert!(!wrote);
    assert_eq!(outs.len(), 2);
    assert!(
        outs[1].starts_with("error: ") && outs[1].contains("no"),
        "{outs:?}"
    );

    // A write to the dot, the execution's own copy, is refused (it runs again in order, on
    // the chart's dot): the prefix ends before it, and no run changed a shared map.
    assert_eq!(
        texts(side_by_side(&["reads", "dot", "after"])),
        (vec!["unset".to_string()], false)
    );
    assert!(
        shared.is_empty(),
        "a refused write leaves the map as it was"
    );

    // The first writer goes on as the run in order once the templates before it have run:
    // its write is made (and seen by the rest of its run), and the prefix ends with it. The
    // next writer, running beside it, is refused and runs in a later round.
    let (outs, wrote) = texts(side_by_side(&[
        "reads",
        "local",
        "writes",
        "writes-too",
        "after",
    ]));
    assert_eq!(outs, ["unset", "12", "writtenv"]);
    assert!(wrote);
    assert_eq!(shared.get("k"), Some(Value::str("v")));
    assert_eq!(shared.get("j"), None, "the second writer's run was refused");

    // Writing the scalar that is there already changes nothing, so it is no write (bitnami
    // sets the password every template computes alike); a map in its place would be.
    assert_eq!(
        texts(side_by_side(&["writes", "after"])),
        (vec!["writtenv".to_string(), "v".to_string()], false)
    );
    let (outs, wrote) = texts(side_by_side(&["after", "map", "reads"]));
    assert_eq!(outs, ["v", "map"]);
    assert!(wrote);
    assert!(matches!(shared.get("k"), Some(Value::Map(_))));
}

#[test]
fn positions_say_which_template_line_wrote_each_output_line() {
    let mut set = TemplateSet::new(
        Funcs::helm(),
        Options {
            positions: true,
            ..Options::default()
        },
    );
    set.parse(
        "c/templates/_helpers.tpl",
        "{{- define \"labels\" -}}\napp: web\ntier: front\n{{- end }}\n\
         {{- define \"kind\" }}kind: Deployment{{ end }}\n",
    )
    .unwrap();
    set.parse(
        "c/templates/web.yaml",
        "apiVersion: v1\n{{ template \"kind\" }}\nmetadata:\n  labels:\n    \
         {{- include \"labels\" . | nindent 4 }}\n  name: {{ .s }}\n\n  x: 1\n",
    )
    .unwrap();
    let out = set.render("c/templates/web.yaml", &dot()).unwrap();
    assert_eq!(
        out.text,
        "apiVersion: v1\nkind: Deployment\nmetadata:\n  labels:\n    app: web\n    tier: front\n  \
         name: hello\n\n  x: 1\n"
    );
    let lines: Vec<Option<(&str, u32, u32)>> = out
        .lines
        .iter()
        .map(|w| w.as_ref().map(|w| (&*w.template, w.line, w.column)))
        .collect();
    let web = "c/templates/web.yaml";
    assert_eq!(
        lines,
        [
            Some((web, 1, 1)),
            // `template` writes into the output: the line of the defined text.
            Some(("c/templates/_helpers.tpl", 5, 21)),
            Some((web, 3, 1)),
            Some((web, 4, 3)),
            // An action's value (an include) is placed at the action.
            Some((web, 5, 9)),
            Some((web, 5, 9)),
            Some((web, 6, 3)),
            None,
            Some((web, 8, 3)),
            None,
        ]
    );
    // Not asked for: nothing recorded.
    let mut plain = TemplateSet::new(Funcs::helm(), Options::default());
    plain.parse("t", "a\n{{ .s }}\n").unwrap();
    assert!(plain.render("t", &dot()).unwrap().lines.is_empty());
}

/// The values path each printed action of `template` read (its container's path by identity
/// in `values`, then its key), in order; None for an action beside them that read none.
fn reads_of(template: &str, values: &Value) -> Vec<Option<String>> {
    fn index(v: &Value, path: &str, out: &mut HashMap<usize, String>) {
        match v {
            Value::Map(m) => {
                out.insert(m.id(), path.to_string());
                for (k, x) in m.entries() {
                    index(&x, &format!("{path}/{k}"), out);
                }
            }
            Value::List(l) => {
                out.insert(l.id(), path.to_string());
                for (i, x) in l.iter().enumerate() {
                    index(x, &format!("{path}/{i}"), out);
                }
            }
            _ => {}
        }
    }
    let mut paths = HashMap::new();
    index(values, "", &mut paths);
    let mut set = TemplateSet::new(
        Funcs::helm(),
        Options {
            positions: true,
            missing_key: MissingKey::Zero,
            ..Options::default()
        },
    );
    set.parse("c/templates/t.yaml", template).unwrap();
    let dot = Value::map(BTreeMap::from([
        ("Values".to_string(), chart_values(values.clone())),
        (
            "Release".to_string(),
            Value::map(BTreeMap::from([("Name".to_string(), Value::str("r"))])),
        ),
    ]));
    let out = set.render("c/templates/t.yaml", &dot).unwrap();
    out.printed
        .iter()
        .map(|p| {
            let read = p.read.as_ref()?;
            let path = paths.get(&read.container).cloned().unwrap_or("?".into());
            Some(match &read.key {
                Some(k) => format!("{path}/{k}"),
                None => path,
            })
        })
        .collect()
}

#[test]
fn positions_say_which_values_an_action_printed_as_it_read_them() {
    let values = helm_values(
        "image: {repository: web, tag: \"1.2 \"}\nres: {limits: {cpu: 2x}}\nargs: [a, b]\n\
         empty: \"\"\nname: web-app\nlist: [{name: x}]\n",
    )
    .unwrap();
    let some = |s: &str| Some(s.to_string());
    // Field chains on the root, on `$`, through the functions that print the value as read.
    assert_eq!(
        reads_of(
            "a: {{ .Values.image.tag }}\nb: {{ $.Values.image.tag | quote }}\nc: {{ quote .Values.name }}\n\
             d:\n  {{- toYaml .Values.res | nindent 2 }}\ne: {{ .Values.name | trunc 63 | trimSuffix \"-\" }}\n\
             f: {{ (.Values.name) }}\n",
            &values
        ),
        [
            some("/image/tag"),
            some("/image/tag"),
            some("/name"),
            some("/res"),
            some("/name"),
            some("/name")
        ]
    );
    // `default` follows the side that won (the default literal was read from nowhere: an
    // action alone on its line that read nothing is left out).
    assert_eq!(
        reads_of(
            "a: {{ .Values.empty | default .Values.name }}\nb: {{ .Values.name | default \"x\" }}\n\
             c: {{ default \"x\" .Values.empty }}\n",
            &values
        ),
        [some("/name"), some("/name")]
    );
    // Inside `with` and `range` dot is no longer the root: a map is known by its identity, a
    // scalar by where `with` or `range` read it; `$` is the root still.
    assert_eq!(
        reads_of(
            "{{ with .Values.image }}a: {{ .tag }}\nb: {{ $.Values.name }}{{ end }}\n\
             {{ with .Values.res }}c: {{ toYaml . }}{{ end }}\n\
             {{ with .Values.name }}d: {{ . }}{{ end }}\n\
             {{ range .Values.args }}- {{ . }}\n{{ end }}\
             {{ range .Values.list }}- {{ .name }}\n{{ end }}\
             {{ $img := .Values.image }}e: {{ $img.repository }}\n",
            &values
        ),
        [
            some("/image/tag"),
            some("/name"),
            some("/res"),
            some("/name"),
            some("/args/0"),
            some("/args/1"),
            some("/list/0/name"),
            some("/image/repository"),
        ]
    );
    // Text made from a value is not the value (`printf`, `upper`), a missing key
    // was read from nowhere, and several actions on one line are each their own.
    assert_eq!(
        reads_of(
            "a: {{ printf \"%s\" .Values.name }}\nb: {{ .Values.missing }}\n\
             c: {{ .Values.image.repository }}:{{ .Values.image.tag }}{{ upper .Values.name }}\n",
            &values
        ),
        [some("/image/repository"), some("/image/tag"), None]
    );
    // A helper that prints one action and nothing else is followed through `include`, with
    // its argument as dot and `$`; one that prints more text, or makes its own, is not.
    assert_eq!(
        reads_of(
            "{{- define \"ns\" -}}{{ .Values.empty | default .Values.name | trunc 63 }}{{- end -}}\n\
             {{- define \"tag\" -}}{{ $.Values.image.tag }}{{- end -}}\n\
             {{- define \"of\" -}}{{ .tag }}{{- end -}}\n\
             {{- define \"outer\" -}}{{ include \"ns\" . }}{{- end -}}\n\
             {{- define \"more\" -}}v{{ .Values.name }}{{- end -}}\n\
             {{- define \"made\" -}}{{ printf \"%s\" .Values.name }}{{- end -}}\n\
             a: {{ include \"ns\" . }}\nb: {{ include \"tag\" . | quote }}\n\
             c: {{ include \"of\" .Values.image }}\nd: {{ include \"outer\" $ }}\n\
             e: {{ include \"more\" . }}\nf: {{ include \"made\" . }}\n",
            &values
        ),
        [
            some("/name"),
            some("/image/tag"),
            some("/image/tag"),
            some("/name"),
        ]
    );
    // Not asked for: nothing recorded.
    let mut plain = TemplateSet::new(Funcs::helm(), Options::default());
    plain.parse("t", "{{ .Values.name }}\n").unwrap();
    let dot = Value::map(BTreeMap::from([("Values".to_string(), values)]));
    assert!(plain.render("t", &dot).unwrap().printed.is_empty());
}

#[test]
fn a_panic_in_an_isolated_execution_leaves_the_thread_as_it_was() {
    let shared = Dict::new(BTreeMap::new());
    let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        value::isolated(None, || {
            if shared.is_empty() {
                panic!("a bug in a function");
            }
        })
    }));
    assert!(caught.is_err());
    // Not isolated any more: a write to a map made outside is made, not refused.
    shared.insert("k".into(), Value::str("v")).unwrap();
    assert_eq!(shared.get("k"), Some(Value::str("v")));
}

/// Time arithmetic past what a time can hold ends in an error or a time at the end of the
/// range, never in an overflow (Go wraps there; a debug build would panic).
#[test]
fn time_arithmetic_at_the_ends_of_the_range_does_not_overflow() {
    let mut set = TemplateSet::new(Funcs::sprig(), Options::default());
    let max = i64::MAX;
    let min = i64::MIN;
    let text = format!(
        "{{{{ $a := toDate \"2006-01-02\" \"2020-01-01\" }}}}\
         {{{{ $a.AddDate {max} {max} {max} }}}}|{{{{ $a.AddDate {min} {min} {min} }}}}|\
         {{{{ ($a.AddDate {max} 0 0).Add {max} }}}}|{{{{ ($a.AddDate {min} 0 0).Add {min} }}}}|\
         {{{{ (($a.AddDate {max} 0 0).Sub ($a.AddDate {min} 0 0)) }}}}|\
         {{{{ (($a.AddDate {max} 0 0).Round {max}) }}}}|{{{{ ($a.Sub $a).Round {max} }}}}|\
         {{{{ (($a.Add {min}).Sub ($a.Add {max})).Abs }}}}|{{{{ ($a.AddDate {max} 0 0).MarshalBinary | len }}}}"
    );
    set.parse("t", &text).unwrap();
    let out = set.execute("t", &Value::Nil).unwrap();
    assert_eq!(out.split('|').count(), 9, "{out}");
}
