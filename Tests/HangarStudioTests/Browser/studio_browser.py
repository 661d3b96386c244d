#!/usr/bin/env python3
"""Drives Hangar Studio in a real browser (Debian's chromium through chromedriver and selenium) for
Tests/HangarStudioTests: one scenario per run, against a `hangar studio` process the Swift test started.

    studio_browser.py SCENARIO --url URL --shots DIR [--expect JSON] [--hangar PATH --db PATH]

Prints `screenshot: PATH` for each screenshot and `ok: …` lines; exits 1 with the reason on stderr when a check
fails. `access` uses no browser (urllib only)."""
import argparse
import json
import os
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request


def fail(reason):
    print("FAILED: " + reason, file=sys.stderr)
    sys.exit(1)


def check(condition, reason):
    if not condition:
        fail(reason)


def make_driver():
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = os.environ.get("HANGAR_CHROMIUM", "/usr/bin/chromium")
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1280,900", "--disable-extensions", "--no-first-run"]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(os.environ.get("HANGAR_CHROMEDRIVER", "/usr/bin/chromedriver"))
    driver = webdriver.Chrome(service=service, options=options)
    driver.set_page_load_timeout(30)
    return driver


class Studio:
    def __init__(self, args):
        self.args = args
        parsed = urllib.parse.urlsplit(args.url)
        self.base = parsed.scheme + "://" + parsed.netloc
        self.token = urllib.parse.parse_qs(parsed.query).get("token", [""])[0]
        self.shots = args.shots
        os.makedirs(self.shots, exist_ok=True)
        self.driver = None

    def start(self):
        self.driver = make_driver()
        started = time.monotonic()
        self.driver.get(self.args.url)  # the token becomes a cookie; the page reloads without it
        self.wait_ready(timeout=300)
        print("ok: the first page (a fresh studio) drew in %.0f ms" % ((time.monotonic() - started) * 1000))
        check("token=" not in self.driver.current_url, "the token stays in the address bar")
        self.console_errors("the first page")

    def open(self, path, what):
        started = time.monotonic()
        self.driver.get(self.base + path)
        self.wait_ready()
        elapsed = time.monotonic() - started
        self.console_errors(what)
        return elapsed

    def wait_ready(self, timeout=30):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.driver.execute_script("return document.body && document.body.dataset.ready === 'true'"):
                return
            time.sleep(0.02)
        fail("the page never finished drawing: " + self.driver.current_url)

    def console_errors(self, what):
        errors = [entry for entry in self.driver.get_log("browser") if entry.get("level") == "SEVERE"]
        check(not errors, what + " logged console errors: " + json.dumps(errors))
        alerts = self.driver.find_elements("css selector", "[role=alert]")
        check(not alerts, what + " shows an error: " + "; ".join(a.text for a in alerts))

    def screenshot(self, name):
        path = os.path.join(self.shots, name + ".png")
        self.driver.save_screenshot(path)
        print("screenshot: " + path)

    def api(self, path):
        return self.driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "fetch(arguments[0]).then(r => r.text().then(t => done({status: r.status, body: t})))"
            ".catch(e => done({status: 0, body: String(e)}));", self.base + path)

    def post(self, path):
        return self.driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "fetch(arguments[0], {method: 'POST'}).then(r => r.text().then(t => done({status: r.status, body: t})))"
            ".catch(e => done({status: 0, body: String(e)}));", self.base + path)

    def quit(self):
        if self.driver:
            self.driver.quit()


def segment(text):
    return urllib.parse.quote(text, safe="")


def scenario_pages(studio, expect):
    """Every page loads without a console error; the version chart shows the counts the store holds."""
    studio.screenshot("overview")
    for collection, versions in expect["charts"].items():
        rows = [r for r in studio.driver.find_elements("css selector", ".chart[data-collection] .chart-row")
                if r.find_element("xpath", "ancestor::section").get_attribute("data-collection") == collection]
        shown = {r.get_attribute("data-version"): int(r.get_attribute("data-count")) for r in rows}
        text = {r.find_element("css selector", ".version-label").text.split(" ")[0]:
                int(r.find_element("css selector", ".version-count").text.replace(",", "")) for r in rows}
        check(shown == versions, "chart of %s: %r, the store holds %r" % (collection, shown, versions))
        check(text == versions, "chart text of %s: %r, the store holds %r" % (collection, text, versions))
        print("ok: the chart of %s shows %r" % (collection, shown))
    pages = [("/collections/" + segment(expect["collection"]), "collection"),
             ("/documents/" + segment(expect["collection"]) + "/" + segment(expect["document"]), "document"),
             ("/changes", "changes"), ("/sync", "sync"), ("/health", "health")]
    for path, name in pages:
        elapsed = studio.open(path, "the " + name + " page")
        print("ok: the %s page drew in %.0f ms" % (name, elapsed * 1000))
        studio.screenshot(name)
    studio.driver.set_window_size(390, 844)  # a phone's width: the pages reflow, nothing is cut off
    studio.open("/collections/" + segment(expect["collection"]), "the collection page on a phone")
    width = studio.driver.execute_script("return document.documentElement.scrollWidth")
    check(width <= 390, "the collection page is %d px wide on a 390 px screen" % width)
    studio.screenshot("collection-phone")
    studio.driver.set_window_size(1280, 900)
    studio.open("/health", "the health page")
    studio.driver.find_element("id", "check").click()
    deadline = time.monotonic() + 20
    while "ok: no problem found" not in studio.driver.find_element("id", "result").text:
        check(time.monotonic() < deadline, "the check never answered ok: " + studio.driver.find_element("id", "result").text)
        time.sleep(0.05)
    studio.screenshot("health-checked")
    print("ok: check says ok")
    if expect.get("next"):
        studio.open("/collections/" + segment(expect["nextCollection"]), "the collection page")
        studio.driver.find_element("id", "next").click()
        studio.wait_ready()
        keys = [r.get_attribute("data-key") for r in studio.driver.find_elements("css selector", "tr[data-key]")]
        check(keys and keys[0] == expect["next"], "Next leads to %r, not %r" % (keys[:1], expect["next"]))
        print("ok: Next leads to " + expect["next"])
    if expect.get("indexPages"):
        scenario_index_pages(studio, expect)


def scenario_index_pages(studio, expect):
    """The collection page filters by an index the store built (picked from the list of built ones) and pages
    through it with the API's cursor: every page in index order, none repeated, none missed."""
    studio.open("/collections/" + segment(expect["nextCollection"]) + "?" + expect["indexQuery"], "an index page")
    options = [o.get_attribute("value") for o in studio.driver.find_elements("css selector", "#index option")]
    check(expect["index"] in options, "the index list %r lacks %r" % (options, expect["index"]))
    seen = []
    for number, wanted in enumerate(expect["indexPages"]):
        if number:
            studio.driver.find_element("id", "next").click()
            studio.wait_ready()
        keys = [r.get_attribute("data-key") for r in studio.driver.find_elements("css selector", "tr[data-key]")]
        check(keys == wanted, "index page %d shows %r, not %r" % (number + 1, keys, wanted))
        seen += keys
        status = studio.driver.find_element("css selector", "[role=status]").text
        check(("of %d matching" % expect["indexMatched"]) in status, "status line: %r" % status)
    check(not studio.driver.find_elements("id", "next"), "a Next link after the last index page")
    check(len(set(seen)) == len(seen), "an index page repeated a key: %r" % seen)
    studio.screenshot("index-pages")
    print("ok: the index pages by cursor: %r" % expect["indexPages"])


def scenario_diff(studio, expect):
    """A diff between two revisions shows exactly the changed paths."""
    path = "/documents/%s/%s?a=%d&b=%d" % (segment(expect["collection"]), segment(expect["document"]), expect["a"], expect["b"])
    studio.open(path, "the diff")
    rows = studio.driver.find_elements("css selector", "#diff tr[data-path]")
    order = lambda entry: json.dumps(entry, sort_keys=True)
    shown = sorted(([json.loads(r.get_attribute("data-path")), r.get_attribute("data-change")] for r in rows), key=order)
    wanted = sorted(([p, c] for p, c in expect["paths"]), key=order)
    studio.driver.execute_script("document.getElementById('diff').scrollIntoView()")
    studio.screenshot("diff")
    check(shown == wanted, "the diff shows %r, not %r" % (shown, wanted))
    print("ok: the diff shows exactly %d paths" % len(shown))


def document_api(expect):
    return "/api/documents/%s/%s" % (segment(expect["collection"]), segment(expect["document"]))


def scenario_restore(studio, expect):
    """--write: Restore asks for confirmation and makes a new revision."""
    before = json.loads(studio.api(document_api(expect))["body"])["currentRevision"]
    studio.open("/documents/%s/%s" % (segment(expect["collection"]), segment(expect["document"])), "the document page")
    row = studio.driver.find_element("css selector", "tr[data-revision='%d']" % expect["revision"])
    row.find_element("xpath", ".//button[normalize-space()='Restore']").click()
    studio.screenshot("restore-confirm")
    row.find_element("xpath", ".//button[normalize-space()='Confirm restore']").click()
    deadline = time.monotonic() + 10
    while "restored=" not in studio.driver.current_url:
        check(time.monotonic() < deadline, "the restore never finished")
        time.sleep(0.05)
    studio.wait_ready()
    after = json.loads(studio.api(document_api(expect))["body"])
    check(after["currentRevision"] == before + 1, "restore made revision %r after %r" % (after["currentRevision"], before))
    studio.screenshot("restored")
    print("ok: restore made revision %d" % after["currentRevision"])

    # Edit: the value as XML, saved after confirmation as a new revision.
    studio.driver.find_element("xpath", "//summary[normalize-space()='Edit the value (XML)']").click()
    editor = studio.driver.find_element("id", "editor")
    edited = editor.get_property("value").replace("<string>first</string>", "<string>edited in the studio</string>")
    check(edited != editor.get_property("value"), "the editor does not hold the document's XML")
    studio.driver.execute_script("arguments[0].value = arguments[1]", editor, edited)
    section = editor.find_element("xpath", "ancestor::details")
    section.find_element("xpath", ".//button[normalize-space()='Save']").click()
    section.find_element("xpath", ".//button[normalize-space()='Confirm save']").click()
    deadline = time.monotonic() + 10
    while True:
        saved = json.loads(studio.api(document_api(expect))["body"])
        if saved["currentRevision"] == after["currentRevision"] + 1:
            break
        check(time.monotonic() < deadline, "the edit was never saved")
        time.sleep(0.05)
    titles = [e for e in saved["tree"]["entries"] if e[0] == "title"]
    check(titles and titles[0][1]["value"] == "edited in the studio", "the edit saved %r" % titles)
    time.sleep(0.6)  # the page reloads itself after a save
    studio.wait_ready()
    studio.screenshot("edited")
    print("ok: an edit made revision %d" % saved["currentRevision"])

    # Delete, after confirmation.
    studio.driver.find_element("xpath", "//button[normalize-space()='Delete']").click()
    studio.driver.find_element("xpath", "//button[normalize-space()='Confirm delete']").click()
    deadline = time.monotonic() + 10
    while not json.loads(studio.api(document_api(expect))["body"]).get("deleted"):
        check(time.monotonic() < deadline, "the delete never happened")
        time.sleep(0.05)
    time.sleep(0.6)
    studio.wait_ready()
    studio.console_errors("the deleted document's page")
    studio.screenshot("deleted")
    print("ok: delete after confirmation")


def scenario_readonly(studio, expect):
    """Read-only: no write control, and a restore request is refused."""
    before = json.loads(studio.api(document_api(expect))["body"])["currentRevision"]
    studio.open("/documents/%s/%s" % (segment(expect["collection"]), segment(expect["document"])), "the document page")
    buttons = studio.driver.find_elements("xpath", "//button[normalize-space()='Restore' or normalize-space()='Delete']")
    check(not buttons, "a read-only studio offers write controls")
    studio.screenshot("read-only-document")
    answer = studio.post(document_api(expect) + "/restore?revision=%d" % expect["revision"])
    check(answer["status"] == 403, "a read-only restore answered %r" % answer)
    after = json.loads(studio.api(document_api(expect))["body"])["currentRevision"]
    check(after == before, "a refused restore changed the revision %r → %r" % (before, after))
    studio.driver.get_log("browser")  # the refused request's console line is expected here
    print("ok: restore refused read-only (403), revision still %d" % after)


def scenario_live(studio, expect):
    """The live feed shows a save made by another process within a second."""
    studio.open("/changes", "the changes page")
    deadline = time.monotonic() + 10
    while not studio.driver.find_element("id", "live").text.startswith("Live"):
        check(time.monotonic() < deadline, "the feed never went live")
        time.sleep(0.02)
    key = expect["key"]
    put = subprocess.run([studio.args.hangar, "db", "put", "--db", studio.args.db, expect["collection"], key, expect["file"]],
                         capture_output=True, text=True)
    saved = time.time()  # the save committed before the process ended
    check(put.returncode == 0, "hangar db put failed: " + put.stderr)
    find = ("for (const r of document.querySelectorAll('#feed tr')) "
            "{ if (r.dataset.key === arguments[0]) return Number(r.dataset.shownAt || 0); } return null;")
    while True:
        shown_at = studio.driver.execute_script(find, key)
        if shown_at:
            break
        check(time.time() - saved < 5, "the save never showed")
        time.sleep(0.01)
    shown = shown_at / 1000 - saved
    check(shown < 1.0, "the save showed after %.0f ms, not within a second" % (shown * 1000))
    studio.console_errors("the live feed")
    studio.screenshot("changes-live")
    print("ok: a save by another process showed after %.0f ms" % (shown * 1000))


def scenario_hostile(studio, expect):
    """`<script>` in keys and strings is shown as text and never run."""
    for path, what in [("/collections/" + segment(expect["collection"]), "collection"),
                       ("/documents/%s/%s" % (segment(expect["collection"]), segment(expect["key"])), "document")]:
        studio.open(path, "the hostile " + what + " page")
        pwned = studio.driver.execute_script("return window.__pwned === undefined ? null : window.__pwned")
        check(pwned is None, "hostile content ran on the %s page (%r)" % (what, pwned))
        text = studio.driver.find_element("tag name", "main").text
        check(expect["key"] in text, "the hostile key is not shown as text on the %s page" % what)
        if what == "document":
            check(expect["value"] in text, "the hostile value is not shown as text")
        scripts = studio.driver.find_elements("css selector", "main script, main img")
        check(not scripts, "hostile markup became elements on the %s page" % what)
        studio.screenshot("hostile-" + what)
    print("ok: hostile keys and strings shown as text, never run")


def scenario_sync(studio, expect):
    """The Sync page: a server's identity and clients, a device's pending changes and conflict copies."""
    studio.open("/sync", "the sync page")
    studio.screenshot("sync")
    text = studio.driver.find_element("tag name", "main").text
    for wanted in expect["texts"]:
        check(wanted in text, "the sync page does not show %r" % wanted)
    if expect.get("conflict"):
        copies = [c for c in studio.driver.find_elements("css selector", "article.conflict")
                  if c.get_attribute("data-key") == expect["conflict"]]
        check(len(copies) == 1, "no conflict copy of %r" % expect["conflict"])
    print("ok: the sync page shows " + ", ".join(expect["texts"]))


def scenario_timings(studio, expect):
    """Not a test: the first paint (first-contentful-paint) and the time until drawn of the pages named, each
    opened `runs` times (the first run also builds the studio's catalog of the collection)."""
    for name, path in expect["pages"]:
        for run in range(expect.get("runs", 3)):
            started = time.monotonic()
            studio.driver.get(studio.base + path)
            studio.wait_ready(timeout=120)
            drawn = time.monotonic() - started
            paint = studio.driver.execute_script(
                "const e = performance.getEntriesByName('first-contentful-paint')[0]; return e ? e.startTime : null")
            print("timing: %s run %d: first paint %s ms, drawn %.0f ms" % (name, run + 1, "%.0f" % paint if paint else "?", drawn * 1000))
        studio.screenshot("timing-" + name)


def request(url, method="GET", headers=None):
    opener = urllib.request.build_opener(NoRedirect)
    try:
        response = opener.open(urllib.request.Request(url, method=method, headers=headers or {}), timeout=10)
        return response.status, dict(response.headers), response.read()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read()


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def scenario_access(args, expect):
    """No token: 401; another token: 403; no data either way; the assets alone are open."""
    parsed = urllib.parse.urlsplit(args.url)
    base = parsed.scheme + "://" + parsed.netloc
    token = urllib.parse.parse_qs(parsed.query)["token"][0]
    check(len(token) >= 32, "the token holds fewer than 128 bits")
    secret = expect["secret"].encode()
    for path in ["/", "/api/overview", "/api/collections/notes", "/api/changes/events", "/collections/notes",
                 "/api/documents/notes/" + segment(expect["document"]) + "/download"]:
        status, _, body = request(base + path)
        check(status == 401 and secret not in body, "%s without the token answered %d" % (path, status))
        status, _, body = request(base + path + "?token=" + "0" * len(token))
        check(status == 403 and secret not in body, "%s with another token answered %d" % (path, status))
        status, _, body = request(base + path, headers={"Cookie": "hangar_studio_0=" + token[:-1] + "x"})
        check(status == 401 and secret not in body, "%s with a wrong cookie answered %d" % (path, status))
    status, headers, _ = request(base + "/assets/studio.js")
    check(status == 200, "the script is not served without the token (%d)" % status)
    status, headers, _ = request(args.url)
    cookie = headers.get("Set-Cookie", "")
    check(status == 303 and "HttpOnly" in cookie and "SameSite=Strict" in cookie, "the token's cookie: %d %r" % (status, cookie))
    check("default-src 'none'" in headers.get("Content-Security-Policy", ""), "no strict Content-Security-Policy")
    status, _, body = request(base + "/api/overview?token=" + token)
    check(status == 200 and b"notes" in body, "the token does not open the API (%d)" % status)
    cookie_pair = cookie.split(";")[0]
    status, _, _ = request(base + "/api/health/check", method="POST",
                           headers={"Cookie": cookie_pair, "Origin": "http://evil.example", "Sec-Fetch-Site": "cross-site"})
    check(status == 403, "a cross-site POST answered %d" % status)
    status, _, _ = request(base + "/api/health/check", method="POST", headers={"Cookie": cookie_pair})
    check(status == 403, "a POST with no Origin answered %d" % status)
    print("ok: refused without the token (401) and with another (403); assets open; cross-site writes refused")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("scenario")
    parser.add_argument("--url", required=True)
    parser.add_argument("--shots", default="/tmp/hangar-studio-shots")
    parser.add_argument("--expect", default="{}")
    parser.add_argument("--hangar")
    parser.add_argument("--db")
    args = parser.parse_args()
    expect = json.loads(args.expect)
    if args.scenario == "access":
        scenario_access(args, expect)
        return
    studio = Studio(args)
    try:
        studio.start()
        {"pages": scenario_pages, "diff": scenario_diff, "restore": scenario_restore, "readonly": scenario_readonly,
         "live": scenario_live, "hostile": scenario_hostile, "sync": scenario_sync,
         "timings": scenario_timings}[args.scenario](studio, expect)
    finally:
        studio.quit()


if __name__ == "__main__":
    main()
