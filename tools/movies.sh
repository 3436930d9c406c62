#!/usr/bin/env bash
# movies.sh - example MCP tools for a small cinema: list films, check a
# customer's age against a film's rating, and book tickets.
#
# Run it with:
#   mcp-shell-host tools/movies.sh
#
# The catalog lives in this script (no network, no files). Every tool receives
# its arguments as ONE JSON string in "$1" and reads it with a single jq call.
# Printing to stdout is the result; `return 1` turns the printed text into an
# error the model can act on, so failure messages say what to change.
#
# This file is sourced by the host: it only defines functions. Functions named
# tool_* become tools; the others are private helpers.

# Print the film catalog, one film per line:
#   id|title|rating|price in pence|showtimes (space-separated)
# Ratings are UK-style certificates (U, PG, 12, 15, 18). Prices are in pence
# so that totals are exact integer arithmetic.
movie_catalog() {
  cat <<'EOF'
1|Pip the Lighthouse Cat|U|750|10:30 13:00 15:30
2|Starfall|12|1050|14:00 17:30 20:45
3|The Quiet Harbour|15|1050|18:15 21:00
4|Night Shift|18|1200|21:30 23:45
EOF
}

# Print the catalog line of the film with id $1; return 1 if there is none.
find_movie() {
  movie_catalog | awk -F'|' -v id="$1" '$1 == id { print; found = 1 } END { exit !found }'
}

# Print the minimum customer age for rating $1 (U and PG: anyone).
min_age_for_rating() {
  case $1 in
    U | PG) echo 0 ;;
    12 | 15 | 18) echo "$1" ;;
    *)
      echo "unknown rating: $1" >&2
      return 1
      ;;
  esac
}

# Succeed if $1 is the JSON text of an integer, e.g. 12 but not 2.5, "12" or
# null. At most 15 digits, so bash arithmetic on it cannot overflow.
is_int() {
  [[ $1 =~ ^-?[0-9]{1,15}$ ]]
}

# Format an amount in pence as pounds: 3150 -> 31.50.
format_pence() {
  printf '%d.%02d' $(($1 / 100)) $(($1 % 100))
}

# Check age $1 (JSON text, from the arguments) against the rating of film
# $2 (a catalog line). Print nothing when allowed; otherwise say why not and
# return 1.
check_customer_age() {
  local age=$1 title rating min_age
  if ! is_int "$age" || ((age < 0 || age > 120)); then
    echo "customerAge must be an integer between 0 and 120, got $age"
    return 1
  fi
  IFS='|' read -r _ title rating _ <<<"$2"
  min_age=$(min_age_for_rating "$rating") || return 1
  if ((age < min_age)); then
    echo "not allowed: \"$title\" is rated $rating, so customers must be at least $min_age (customerAge was $age)"
    return 1
  fi
}

# List the films that are showing, with their id, rating, ticket price and
# showtimes. Use the id with check_age and book_tickets.
# @title List movies
# @annotations {"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false}
# @sandbox read-only,no-network
tool_list_movies() {
  local id title rating pence showtimes
  while IFS='|' read -r id title rating pence showtimes; do
    echo "$id. $title (rated $rating) - £$(format_pence "$pence") per ticket - showtimes: ${showtimes// /, }"
  done < <(movie_catalog)
}

# Check whether a customer of a given age may watch a film.
# Prints "ok" with the rating; fails with the minimum age when the customer is
# too young for the film's rating.
# @title Check age
# @param movieId integer Film id from list_movies
# @param customerAge integer Age of the customer in years (0-120)
# @annotations {"readOnlyHint": true, "idempotentHint": true, "openWorldHint": false}
# @sandbox read-only,no-network
tool_check_age() {
  local movie_id age movie title rating
  # One jq call reads all arguments. tojson keeps the JSON text, so a missing
  # or mistyped value shows up as null, "12", 2.5 and fails is_int below.
  # Each value is NUL-terminated, which `read -d ''` splits on.
  {
    IFS= read -r -d '' movie_id
    IFS= read -r -d '' age
  } < <(jq -j '(.movieId | tojson), (.customerAge | tojson) | . + "\u0000"' <<<"$1")

  if ! is_int "$movie_id"; then
    echo "movieId must be an integer id from list_movies, got $movie_id"
    return 1
  fi
  if ! movie=$(find_movie "$movie_id"); then
    echo "unknown movieId $movie_id; call list_movies to see the films that are showing"
    return 1
  fi
  check_customer_age "$age" "$movie" || return 1
  IFS='|' read -r _ title rating _ <<<"$movie"
  echo "ok: a customer aged $age may watch \"$title\" (rated $rating)"
}

# Book tickets for one showing of a film and print the booking as JSON.
# All tickets in a booking are for the same showtime; seats are held for
# 10 minutes.
# @title Book tickets
# @param movieId integer Film id from list_movies
# @param showTime string Showtime as HH:MM, one of the film's showtimes
# @param numTickets integer Number of tickets, 1 to 10
# @param customerAge integer Age of the youngest customer, checked against the rating
# @output {"type": "object",
#          "properties": {
#            "bookingId":  {"type": "string"},
#            "movieId":    {"type": "integer"},
#            "title":      {"type": "string"},
#            "showTime":   {"type": "string"},
#            "numTickets": {"type": "integer"},
#            "totalPrice": {"type": "string", "description": "Total in GBP, e.g. 31.50"},
#            "currency":   {"type": "string"},
#            "message":    {"type": "string"}
#          },
#          "required": ["bookingId", "movieId", "title", "showTime", "numTickets",
#                       "totalPrice", "currency", "message"]}
# @annotations {"readOnlyHint": false, "destructiveHint": false, "idempotentHint": false, "openWorldHint": false}
# @sandbox read-only,no-network
tool_book_tickets() {
  local movie_id show_time num_tickets age movie title rating pence showtimes total booking_id
  # Strings are read as they are (tostring); the rest as JSON text (see tool_check_age).
  {
    IFS= read -r -d '' movie_id
    IFS= read -r -d '' show_time
    IFS= read -r -d '' num_tickets
    IFS= read -r -d '' age
  } < <(jq -j '(.movieId | tojson), (.showTime // "" | tostring),
               (.numTickets | tojson), (.customerAge | tojson) | . + "\u0000"' <<<"$1")

  if ! is_int "$movie_id"; then
    echo "movieId must be an integer id from list_movies, got $movie_id"
    return 1
  fi
  if ! movie=$(find_movie "$movie_id"); then
    echo "unknown movieId $movie_id; call list_movies to see the films that are showing"
    return 1
  fi
  IFS='|' read -r _ title rating pence showtimes <<<"$movie"

  if [[ ! $show_time =~ ^([01][0-9]|2[0-3]):[0-5][0-9]$ ]]; then
    echo "showTime must be a time as HH:MM (e.g. 20:45), got \"$show_time\""
    return 1
  fi
  if [[ " $showtimes " != *" $show_time "* ]]; then
    echo "\"$title\" is not showing at $show_time; choose one of: ${showtimes// /, }"
    return 1
  fi
  if ! is_int "$num_tickets" || ((num_tickets < 1 || num_tickets > 10)); then
    echo "numTickets must be an integer between 1 and 10, got $num_tickets"
    return 1
  fi
  check_customer_age "$age" "$movie" || return 1

  total=$(format_pence $((pence * num_tickets)))
  printf -v booking_id 'BK-%d-%s-%04d' "$movie_id" "${show_time/:/}" $((RANDOM % 10000))
  # stderr goes to the host's log, not to the model.
  echo "booked $num_tickets ticket(s) for movie $movie_id at $show_time: $booking_id" >&2

  # Build the JSON with jq so every value is escaped correctly.
  jq -n \
    --arg bookingId "$booking_id" \
    --argjson movieId "$movie_id" \
    --arg title "$title" \
    --arg showTime "$show_time" \
    --argjson numTickets "$num_tickets" \
    --arg totalPrice "$total" \
    '{bookingId: $bookingId, movieId: $movieId, title: $title, showTime: $showTime,
      numTickets: $numTickets, totalPrice: $totalPrice, currency: "GBP",
      message: "Booked \($numTickets) ticket(s) for \"\($title)\" at \($showTime). Total: £\($totalPrice). Booking \($bookingId); seats are held for 10 minutes."}'
}
