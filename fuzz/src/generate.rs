//! A schema-guided generator of Kubernetes JSON: from fuzzer bytes, a value
//! shaped like a message (`MessageSchema`) with mostly well-typed members
//! (times, quantities, durations, int-or-string, raw JSON, maps, arrays) and
//! now and then a value of the wrong type or `null`. Used by `json_encode`
//! (Pods) and `go_oracle` (several kinds, judged by Go).

use arbitrary::{Result, Unstructured};
use kguest_wire::schema::{FieldSchema, JsonForm, Kind, Label, MessageSchema};
use serde_json::{Map, Number, Value};

const WORDS: &[&str] = &[
    "",
    "a",
    "nginx",
    "default",
    "kube-system",
    "app",
    "Always",
    "IfNotPresent",
    "TCP",
    "UDP",
    "Running",
    "True",
    "False",
    "node-1",
    "10.0.0.1",
    "0",
    "-",
    "é",
    "🦀",
    "\u{0}",
    "key=value",
];

const QUANTITIES: &[&str] = &[
    "0",
    "1",
    "100m",
    "0.5",
    "1.5Gi",
    "1Ki",
    "1e3",
    "1E-3",
    "+1",
    "-1",
    ".5",
    "5.",
    "1000m",
    "1024Mi",
    "8Ei",
    "9.3e18",
    "1n",
    "0.0000000001",
    "12345678901234567890123456789",
    "1e-10",
    "k",
    ".",
    "-",
    "",
    "1 ",
    "Ki",
    "0e0",
    "1.5e+2",
];

const DURATIONS: &[&str] = &[
    "0s", "0", "1h", "1.5h", "-2m3s", "300ms", "1µs", "1us", "2h45m",
];

pub fn word(u: &mut Unstructured) -> Result<String> {
    Ok(if u.ratio(1, 4)? {
        String::from(u.arbitrary::<&str>()?)
    } else {
        String::from(*u.choose(WORDS)?)
    })
}

fn quantity_text(u: &mut Unstructured) -> Result<String> {
    if u.ratio(1, 2)? {
        return Ok(String::from(*u.choose(QUANTITIES)?));
    }
    let mut s = String::new();
    match u.int_in_range(0..=3u8)? {
        0 => s.push('-'),
        1 => s.push('+'),
        _ => {}
    }
    for _ in 0..u.int_in_range(0..=22u8)? {
        s.push(char::from(b'0' + u.int_in_range(0..=9u8)?));
    }
    if u.ratio(1, 3)? {
        s.push('.');
        for _ in 0..u.int_in_range(0..=12u8)? {
            s.push(char::from(b'0' + u.int_in_range(0..=9u8)?));
        }
    }
    const SUFFIXES: &[&str] = &[
        "", "n", "u", "m", "k", "M", "G", "T", "P", "E", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "e",
        "E", "e-", "e+",
    ];
    s.push_str(u.choose(SUFFIXES)?);
    if s.ends_with(['e', 'E', '-', '+']) {
        s.push_str(&u.int_in_range(0..=40u8)?.to_string());
    }
    Ok(s)
}

fn time_text(u: &mut Unstructured) -> Result<String> {
    if u.ratio(1, 16)? {
        return Ok(String::from(u.arbitrary::<&str>()?));
    }
    if u.ratio(1, 16)? {
        return Ok("0001-01-01T00:00:00Z".into());
    }
    let mut s = format!(
        "{:04}-{:02}-{:02}{}{:02}:{:02}:{:02}",
        u.int_in_range(0..=9999u16)?,
        u.int_in_range(0..=13u8)?,
        u.int_in_range(0..=32u8)?,
        if u.ratio(1, 8)? { 't' } else { 'T' },
        u.int_in_range(0..=24u8)?,
        u.int_in_range(0..=60u8)?,
        u.int_in_range(0..=61u8)?,
    );
    if u.ratio(1, 2)? {
        s.push('.');
        for _ in 0..u.int_in_range(0..=10u8)? {
            s.push(char::from(b'0' + u.int_in_range(0..=9u8)?));
        }
    }
    if u.ratio(1, 3)? {
        s.push_str(&format!(
            "{}{:02}:{:02}",
            if u.arbitrary()? { '+' } else { '-' },
            u.int_in_range(0..=24u8)?,
            u.int_in_range(0..=60u8)?
        ));
    } else {
        s.push(if u.ratio(1, 8)? { 'z' } else { 'Z' });
    }
    Ok(s)
}

fn duration_text(u: &mut Unstructured) -> Result<String> {
    if u.ratio(1, 2)? {
        return Ok(String::from(*u.choose(DURATIONS)?));
    }
    let mut s = String::new();
    if u.ratio(1, 4)? {
        s.push('-');
    }
    for _ in 0..u.int_in_range(1..=3u8)? {
        s.push_str(&u.int_in_range(0..=100_000u32)?.to_string());
        if u.ratio(1, 3)? {
            s.push('.');
            s.push_str(&u.int_in_range(0..=999u16)?.to_string());
        }
        s.push_str(u.choose(&["ns", "us", "µs", "ms", "s", "m", "h"])?);
    }
    Ok(s)
}

pub fn any_json(u: &mut Unstructured, depth: u32) -> Result<Value> {
    let pick = if depth > 3 {
        u.int_in_range(0..=4u8)?
    } else {
        u.int_in_range(0..=6u8)?
    };
    Ok(match pick {
        0 => Value::Null,
        1 => Value::Bool(u.arbitrary()?),
        2 => Value::from(u.arbitrary::<i64>()?),
        3 => Number::from_f64(u.arbitrary()?).map_or(Value::Null, Value::Number),
        4 => Value::String(word(u)?),
        5 => Value::Array(
            (0..u.int_in_range(0..=3u8)?)
                .map(|_| any_json(u, depth + 1))
                .collect::<Result<_>>()?,
        ),
        _ => {
            let mut map = Map::new();
            for _ in 0..u.int_in_range(0..=3u8)? {
                map.insert(word(u)?, any_json(u, depth + 1)?);
            }
            Value::Object(map)
        }
    })
}

pub fn gen_message(schema: &MessageSchema, u: &mut Unstructured, depth: u32) -> Result<Value> {
    Ok(match schema.json {
        JsonForm::Object => {
            let mut members = Map::new();
            gen_members(schema, u, depth, &mut members)?;
            Value::Object(members)
        }
        JsonForm::Timestamp { .. } => Value::String(time_text(u)?),
        JsonForm::EmbeddedString => Value::String(word(u)?),
        JsonForm::Quantity => {
            if u.ratio(1, 16)? {
                Number::from_f64(u.arbitrary()?).map_or(Value::Null, Value::Number)
            } else {
                Value::String(quantity_text(u)?)
            }
        }
        JsonForm::IntOrString => {
            if u.arbitrary()? {
                Value::from(u.arbitrary::<i32>()?)
            } else {
                Value::String(word(u)?)
            }
        }
        JsonForm::RawJson => any_json(u, 0)?,
        JsonForm::BareArray => match schema.fields.first() {
            Some(field) => Value::Array(
                (0..u.int_in_range(0..=3u8)?)
                    .map(|_| gen_scalar(field, u, depth + 1))
                    .collect::<Result<_>>()?,
            ),
            None => Value::Null,
        },
        JsonForm::Duration => Value::String(duration_text(u)?),
    })
}

fn gen_members(
    schema: &MessageSchema,
    u: &mut Unstructured,
    depth: u32,
    members: &mut Map<String, Value>,
) -> Result<()> {
    // Fewer members the deeper we go; nothing once the input runs out.
    let odds = 3 + depth;
    for field in schema.fields {
        if u.is_empty() {
            break;
        }
        if let (true, Kind::Message(inner)) = (field.inline, field.kind) {
            if u.ratio(1, 2)? {
                gen_members(inner, u, depth + 1, members)?;
            }
            continue;
        }
        if !u.ratio(1, odds)? {
            continue;
        }
        let value = match field.label {
            Label::Singular => gen_scalar(field, u, depth + 1)?,
            Label::Repeated => Value::Array(
                (0..u.int_in_range(0..=3u8)?)
                    .map(|_| gen_scalar(field, u, depth + 1))
                    .collect::<Result<_>>()?,
            ),
            Label::Map => {
                let mut entries = Map::new();
                if let Kind::Message(entry) = field.kind
                    && let (Some(k), Some(v)) = (entry.field(1), entry.field(2))
                {
                    for _ in 0..u.int_in_range(0..=3u8)? {
                        let key = match k.kind {
                            Kind::String => word(u)?,
                            Kind::Bool => {
                                String::from(if u.arbitrary()? { "true" } else { "false" })
                            }
                            _ => u.arbitrary::<i32>()?.to_string(),
                        };
                        entries.insert(key, gen_scalar(v, u, depth + 1)?);
                    }
                }
                Value::Object(entries)
            }
        };
        members.insert(field.json_name().to_string(), value);
    }
    Ok(())
}

fn gen_scalar(field: &FieldSchema, u: &mut Unstructured, depth: u32) -> Result<Value> {
    // Now and then a value of any type, or null.
    if u.ratio(1, 64)? {
        return any_json(u, 2);
    }
    if u.ratio(1, 64)? {
        return Ok(Value::Null);
    }
    Ok(match field.kind {
        Kind::Message(inner) if depth > 24 => {
            gen_message(inner, &mut Unstructured::new(&[]), depth)?
        }
        Kind::Message(inner) => gen_message(inner, u, depth)?,
        Kind::String => Value::String(word(u)?),
        Kind::Bytes => {
            let bytes: Vec<u8> = u.arbitrary()?;
            Value::String(kguest_json::base64(&bytes))
        }
        Kind::Bool => Value::Bool(u.arbitrary()?),
        Kind::Int32 | Kind::Sint32 | Kind::Sfixed32 | Kind::Enum => {
            Value::from(u.arbitrary::<i32>()?)
        }
        Kind::Int64 | Kind::Sint64 | Kind::Sfixed64 => Value::from(u.arbitrary::<i64>()?),
        Kind::Uint32 | Kind::Fixed32 => Value::from(u.arbitrary::<u32>()?),
        Kind::Uint64 | Kind::Fixed64 => Value::from(u.arbitrary::<u64>()?),
        Kind::Float | Kind::Double => {
            Number::from_f64(u.arbitrary()?).map_or(Value::Null, Value::Number)
        }
    })
}
