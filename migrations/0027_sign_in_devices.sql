-- A browser that signed in before keeps its own allowance of sign-in links (issue 45): a
-- stranger who spends an address's anonymous allowance cannot keep its owner out. The browser
-- carries a random device token in a long-lived cookie; only its hash is kept, with each
-- address it signed in as. Rows unused for a year are deleted when a browser signs in.
CREATE TABLE sign_in_devices (
    device_hash      BYTEA       NOT NULL,
    email            TEXT        NOT NULL,
    signed_in_at     TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (device_hash, email)
);
CREATE INDEX sign_in_devices_signed_in ON sign_in_devices (signed_in_at);

-- The allowance a link was counted against: NULL for the address's anonymous allowance, else
-- the hash of the device that asked.
ALTER TABLE sign_in_links ADD COLUMN device_hash BYTEA;
