"""The API's response shapes, one home for each: a module per resource holds the shape's fast
builder (`*_json`: a plain dict from prefetched rows) and the DRF serializer that describes it
for the OpenAPI schema and delegates to it, because instantiating nested ModelSerializers per
row cost more than the database for a 50-row page. Schemathesis checks that the two agree.

Request bodies (what a view parses: a decision, a review, papers to add) stay with their view.
"""
