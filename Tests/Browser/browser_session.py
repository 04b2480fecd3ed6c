#!/usr/bin/env python3
"""A headless Chromium for the inspector tests (Tests/EndToEndTests/InspectorBrowserTests.swift).

Usage: browser_session.py CHROMIUM CHROMEDRIVER

Starts Debian's chromium through its chromedriver (Selenium; no driver or browser is ever
downloaded), then reads one JSON command per line on stdin and answers each with one JSON line
on stdout: {"ok": true, ...} or {"error": "..."}. The Swift test drives the page step by step
between its own actions (sending a delivery, reading what the handler received), so the
browser stays open across them. Commands:

  {"open": URL}                        load a page
  {"viewport": [W, H]}                 lay the page out in a W x H CSS-pixel window (a 1280 x 800
                                       laptop, say), as screenshots then are
  {"wait": CSS, "text": T, "count": N, "timeout": S}
                                       until an element matches CSS (whose textContent holds T,
                                       or until N elements match); "timeout" bounds the wait
  {"text": CSS}                        {"value": textContent of the first match}
  {"texts": CSS}                       {"value": [textContent of each match]}
  {"count": CSS}                       {"value": number of matches}
  {"attribute": CSS, "name": A}        {"value": the attribute of the first match, or null}
  {"click": CSS}                       click the first match
  {"type": CSS, "keys": T}             empty the first match (an input or textarea), then type T
                                       into it key by key, as a person does
  {"select": CSS, "value": V}          choose the option whose value is V in the first <select> match
  {"script": JS}                       {"value": the result of `JS` run as a function body}
  {"async": JS}                        the same for a script that calls arguments[0](result)
  {"screenshot": PATH}                 save the window as a PNG
  {"console": true}                    {"value": [messages the page logged since the last call]}
  {"quit": true}                       close the browser and exit
"""
import json
import shutil
import sys
import tempfile
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support.select import Select


def start(chromium, chromedriver, profile):
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1400,860", "--no-first-run", "--no-default-browser-check",
                     "--disable-extensions", "--disable-background-networking", "--disable-component-update",
                     "--disable-sync", "--disable-features=Translate,MediaRouter", "--force-color-profile=srgb",
                     f"--user-data-dir={profile}"]:
        options.add_argument(argument)
    # The console (CSP reports among them) is read back with {"console": true}.
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(options=options, service=Service(executable_path=chromedriver))


def wait(browser, command):
    css = command["wait"]
    deadline = time.monotonic() + float(command.get("timeout", 20))
    while True:
        elements = browser.find_elements(By.CSS_SELECTOR, css)
        if "count" in command:
            if len(elements) >= command["count"]:
                return {"ok": True, "value": len(elements)}
        elif "text" in command:
            for element in elements:
                if command["text"] in (element.get_property("textContent") or ""):
                    return {"ok": True}
        elif elements:
            return {"ok": True}
        if time.monotonic() > deadline:
            seen = [element.get_property("textContent") for element in elements][:5]
            return {"error": f"nothing matched {json.dumps(command)} in time; matching elements: {len(elements)} {seen}"}
        time.sleep(0.05)


def handle(browser, command):
    if "viewport" in command:
        # The window's inner size exactly (--window-size sets the outer one, which headless
        # Chromium's versions size differently): the device metrics DevTools emulates.
        width, height = command["viewport"]
        browser.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                                {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False})
        return {"ok": True}
    if "open" in command:
        browser.get(command["open"])
        return {"ok": True}
    if "wait" in command:
        return wait(browser, command)
    if "text" in command:
        elements = browser.find_elements(By.CSS_SELECTOR, command["text"])
        if not elements:
            return {"error": f"no element matches {command['text']}"}
        return {"ok": True, "value": elements[0].get_property("textContent")}
    if "texts" in command:
        return {"ok": True, "value": [e.get_property("textContent") for e in browser.find_elements(By.CSS_SELECTOR, command["texts"])]}
    if "count" in command:
        return {"ok": True, "value": len(browser.find_elements(By.CSS_SELECTOR, command["count"]))}
    if "attribute" in command:
        elements = browser.find_elements(By.CSS_SELECTOR, command["attribute"])
        if not elements:
            return {"error": f"no element matches {command['attribute']}"}
        return {"ok": True, "value": elements[0].get_attribute(command["name"])}
    if "click" in command:
        browser.find_element(By.CSS_SELECTOR, command["click"]).click()
        return {"ok": True}
    if "type" in command:
        field = browser.find_element(By.CSS_SELECTOR, command["type"])
        field.clear()
        field.send_keys(command["keys"])
        return {"ok": True}
    if "select" in command:
        Select(browser.find_element(By.CSS_SELECTOR, command["select"])).select_by_value(command["value"])
        return {"ok": True}
    if "script" in command:
        return {"ok": True, "value": browser.execute_script(command["script"])}
    if "async" in command:
        return {"ok": True, "value": browser.execute_async_script(command["async"])}
    if "screenshot" in command:
        browser.save_screenshot(command["screenshot"])
        return {"ok": True}
    if "console" in command:
        return {"ok": True, "value": [entry["message"] for entry in browser.get_log("browser")]}
    return {"error": f"unknown command {json.dumps(command)}"}


def main():
    chromium, chromedriver = sys.argv[1], sys.argv[2]
    profile = tempfile.mkdtemp(prefix="appdna-browser-")
    browser = None
    try:
        browser = start(chromium, chromedriver, profile)
        browser.set_script_timeout(60)
        print(json.dumps({"ok": True, "version": browser.capabilities.get("browserVersion")}), flush=True)
        for line in sys.stdin:
            if not line.strip():
                continue
            command = json.loads(line)
            if command.get("quit"):
                break
            try:
                reply = handle(browser, command)
            except Exception as error:  # the test reports it with the command that caused it
                reply = {"error": f"{type(error).__name__}: {error}"}
            print(json.dumps(reply), flush=True)
    except Exception as error:
        print(json.dumps({"error": f"cannot start the browser: {type(error).__name__}: {error}"}), flush=True)
    finally:
        if browser is not None:
            browser.quit()
        shutil.rmtree(profile, ignore_errors=True)


if __name__ == "__main__":
    main()
