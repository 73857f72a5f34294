CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL, qty INTEGER);
CREATE INDEX item_name ON item(name);
INSERT INTO item(name, price, qty) VALUES ('pear', 3.5, 4), ('apple', 2.0, 10), ('bread', 5.25, 1), ('cheese', 11.0, 2);
UPDATE item SET qty = qty + 1 WHERE name LIKE 'p%';
SELECT name, price * qty AS total FROM item WHERE qty > 1 ORDER BY total DESC;
SELECT count(*), sum(qty), printf('%.2f', avg(price)) FROM item;
WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5) SELECT group_concat(i * i, ',') FROM n;
DELETE FROM item WHERE price > 10;
SELECT name FROM item ORDER BY name;
