-- Products an admin offers for sale; checkout uses the newest one of a plan.
CREATE TABLE products (
    id          INTEGER PRIMARY KEY,
    name        TEXT    NOT NULL,
    plan        TEXT    NOT NULL CHECK (plan IN ('pro', 'enterprise')),
    price_cents INTEGER NOT NULL CHECK (price_cents > 0),
    currency    TEXT    NOT NULL,
    interval    TEXT    NOT NULL CHECK (interval IN ('month', 'year')),
    created_at  INTEGER NOT NULL
);
CREATE INDEX products_plan ON products (plan, id);

-- Every verified billing webhook event, so each id is applied at most once.
CREATE TABLE webhook_events (
    id          TEXT    PRIMARY KEY,
    type        TEXT    NOT NULL,
    outcome     TEXT    NOT NULL,
    received_at INTEGER NOT NULL
) WITHOUT ROWID;
