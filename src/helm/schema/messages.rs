//! gojsonschema's English (its `locales.go`): why a schema cannot be used, and each violation
//! of one, worded as Helm prints them.

/// Why gojsonschema cannot use a schema (`gojsonschema.Validate`'s error), or why kdelta stops
/// where helm would not finish.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Unusable {
    /// The document is not JSON: `encoding/json`'s error.
    #[error("{0}")]
    Json(String),
    /// The document is neither an object nor a boolean.
    #[error("schema is invalid")]
    NotASchema,
    /// `{key} must be of type {ty}`.
    #[error("{key} must be of type {ty}")]
    MustBeOfType { key: &'static str, ty: &'static str },
    /// A keyword's value has the wrong JSON type.
    #[error("Invalid type. Expected: {expected}, given: {given}")]
    InvalidType {
        expected: &'static str,
        given: &'static str,
    },
    /// A subschema that is not an object (nor, from draft 6, a boolean).
    #[error("Expected: valid schema, given: Invalid JSON")]
    NotAValidSchema,
    /// A `type` that is not one of JSON's.
    #[error(
        "has a primitive type that is NOT VALID -- given: /{0}/ Expected valid values are:[array boolean integer number null object string]"
    )]
    UnknownType(String),
    /// A `type` listed twice.
    #[error("{0} type is duplicated")]
    DuplicatedType(String),
    /// A `patternProperties` key Go's `regexp` refuses.
    #[error("Invalid regex pattern '{0}'")]
    PatternProperty(String),
    /// `multipleOf` zero or negative.
    #[error("{0} must be strictly greater than 0")]
    NotPositive(&'static str),
    /// `{x} must be of a {y}`.
    #[error("{x} must be of a {y}")]
    MustBeOfA { x: &'static str, y: &'static str },
    /// `{x} must be of an {y}`.
    #[error("{x} must be of an {y}")]
    MustBeOfAn { x: &'static str, y: &'static str },
    /// Draft 4's boolean `exclusiveMinimum`/`exclusiveMaximum` without its bound.
    #[error("{x} cannot be used without {y}")]
    CannotBeUsedWithout { x: &'static str, y: &'static str },
    /// `minLength` above `maxLength`, or `minProperties` above `maxProperties`.
    #[error("{x} cannot be greater than {y}")]
    CannotBeGreaterThan { x: &'static str, y: &'static str },
    /// A `pattern` Go's `regexp` refuses.
    #[error("{0} must be a valid regex")]
    Regex(&'static str),
    /// A negative count.
    #[error("{0} must be greater than or equal to 0")]
    Negative(&'static str),
    /// `required` holding something else than strings.
    #[error("{key} items must be {ty}")]
    ItemsMustBeOfType { key: &'static str, ty: &'static str },
    /// `required` or `enum` listing a value twice.
    #[error("{0} items must be unique")]
    ItemsMustBeUnique(&'static str),
    /// A reference that is neither in the document nor an absolute URL.
    #[error("Reference {0} must be canonical")]
    NotCanonical(String),
    /// `url.Parse`'s, gojsonpointer's or `json.Unmarshal`'s error, as Go words it.
    #[error("{0}")]
    Go(String),
    /// gojsonschema panicked; Helm recovers and says so.
    #[error("unable to validate schema: {0}")]
    Panic(String),
    /// A reference to another document that is not among those fetched: helm would read it
    /// (an http(s) URL, or a file relative to its working directory).
    #[error(
        "$ref {0} names a document outside values.schema.json that kdelta has not fetched (it fetches http(s) URLs, at most 32 for a schema)"
    )]
    Remote(String),
    /// A `$ref` cycle that comes back to the same value without descending into it: helm
    /// recurses until Go's stack overflows.
    #[error(
        "$ref cycle: the schema applies itself to the same value without end (helm crashes with a stack overflow)"
    )]
    Cycle,
    /// Subschemas read or applied inside one another deeper than kdelta follows.
    #[error("the schema nests subschemas and references deeper than {0} levels")]
    TooDeep(usize),
}

/// One violation: the field (`(root)`, `image.tag`, `list.0`) and what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Violation {
    /// gojsonschema's `Field()`: the context without its `(root).` prefix.
    pub field: String,
    pub kind: Kind,
}

/// What a violation says (gojsonschema's error types).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    False,
    Required(String),
    InvalidType {
        expected: String,
        given: &'static str,
    },
    AnyOf,
    OneOf,
    AllOf,
    Not,
    MissingDependency(String),
    /// The constant as gojsonschema writes it.
    Const(String),
    /// The allowed values, written and joined as gojsonschema does.
    Enum(String),
    NoAdditionalItems,
    MinItems(i64),
    MaxItems(i64),
    Unique(usize, usize),
    Contains,
    MinProperties(i64),
    MaxProperties(i64),
    AdditionalProperty(String),
    PropertyName(String),
    MinLength(i64),
    MaxLength(i64),
    Pattern(String),
    Format(String),
    /// The limits as `big.Float` prints them.
    MultipleOf(String),
    Minimum(String),
    ExclusiveMinimum(String),
    Maximum(String),
    ExclusiveMaximum(String),
    Then,
    Else,
}

impl std::fmt::Display for Violation {
    /// gojsonschema's `ResultError.String()`: `field: description`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let field = &self.field;
        write!(f, "{field}: ")?;
        match &self.kind {
            Kind::False => write!(f, "False always fails validation"),
            Kind::Required(p) => write!(f, "{p} is required"),
            Kind::InvalidType { expected, given } => {
                write!(f, "Invalid type. Expected: {expected}, given: {given}")
            }
            Kind::AnyOf => write!(f, "Must validate at least one schema (anyOf)"),
            Kind::OneOf => write!(f, "Must validate one and only one schema (oneOf)"),
            Kind::AllOf => write!(f, "Must validate all the schemas (allOf)"),
            Kind::Not => write!(f, "Must not validate the schema (not)"),
            Kind::MissingDependency(d) => write!(f, "Has a dependency on {d}"),
            Kind::Const(c) => write!(f, "{field} does not match: {c}"),
            Kind::Enum(allowed) => write!(f, "{field} must be one of the following: {allowed}"),
            Kind::NoAdditionalItems => write!(f, "No additional items allowed on array"),
            Kind::MinItems(n) => write!(f, "Array must have at least {n} items"),
            Kind::MaxItems(n) => write!(f, "Array must have at most {n} items"),
            Kind::Unique(i, j) => write!(f, "array items[{i},{j}] must be unique"),
            Kind::Contains => write!(f, "At least one of the items must match"),
            Kind::MinProperties(n) => write!(f, "Must have at least {n} properties"),
            Kind::MaxProperties(n) => write!(f, "Must have at most {n} properties"),
            Kind::AdditionalProperty(p) => write!(f, "Additional property {p} is not allowed"),
            Kind::PropertyName(p) => write!(f, "Property name of \"{p}\" does not match"),
            Kind::MinLength(n) => write!(f, "String length must be greater than or equal to {n}"),
            Kind::MaxLength(n) => write!(f, "String length must be less than or equal to {n}"),
            Kind::Pattern(p) => write!(f, "Does not match pattern '{p}'"),
            Kind::Format(x) => write!(f, "Does not match format '{x}'"),
            Kind::MultipleOf(n) => write!(f, "Must be a multiple of {n}"),
            Kind::Minimum(n) => write!(f, "Must be greater than or equal to {n}"),
            Kind::ExclusiveMinimum(n) => write!(f, "Must be greater than {n}"),
            Kind::Maximum(n) => write!(f, "Must be less than or equal to {n}"),
            Kind::ExclusiveMaximum(n) => write!(f, "Must be less than {n}"),
            Kind::Then => write!(f, "Must validate \"then\" as \"if\" was valid"),
            Kind::Else => write!(f, "Must validate \"else\" as \"if\" was not valid"),
        }
    }
}
