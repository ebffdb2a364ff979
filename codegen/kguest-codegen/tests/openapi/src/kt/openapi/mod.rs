// Re-exports only: the reader skips every mod.rs.

mod meta;
pub use self::meta::Meta;

mod micro_time;
pub use self::micro_time::MicroTime;

mod port;
pub use self::port::Port;

mod raw;
pub use self::raw::Raw;

mod time;
pub use self::time::Time;

mod widget;
pub use self::widget::Widget;

mod widget_spec;
pub use self::widget_spec::WidgetSpec;

mod widget_status;
pub use self::widget_status::WidgetStatus;
