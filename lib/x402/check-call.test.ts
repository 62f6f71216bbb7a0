/** A call is checked against the service's declaration before any quote: what is wrong is named. */
import { describe, expect, it } from "vitest";
import { checkCall } from "./check-call";
import type { InputContract } from "./input-contract";
import { BODY_CONTENT_TYPES } from "./request-body";

const weather: InputContract = {
  method: "GET",
  query: [
    { name: "city", type: "string", required: true },
    { name: "units", type: "string", required: false },
  ],
  path: [],
};

const translate: InputContract = {
  method: "POST",
  query: [],
  path: [{ name: "project", required: true }],
  routeTemplate: "/projects/:project/translate",
  body: {
    type: "json",
    fields: [
      { name: "text", type: "string", required: true },
      { name: "to", type: "string", required: true },
      { name: "formal", type: "boolean", required: false },
    ],
  },
};

describe("checkCall", () => {
  it("lets a call that gives everything required through", () => {
    expect(checkCall(weather, { url: "https://w.example/weather?city=Lisbon", method: "GET" })).toEqual({ ok: true });
    expect(checkCall(translate, { url: "https://t.example/projects/demo/translate", method: "POST", body: '{"text":"hi","to":"fr"}' })).toEqual({ ok: true });
  });

  it("names a missing or empty required query parameter", () => {
    expect(checkCall(weather, { url: "https://w.example/weather", method: "GET" })).toEqual({ ok: false, problems: ['missing query parameter "city"'] });
    expect(checkCall(weather, { url: "https://w.example/weather?city=%20&units=metric", method: "GET" })).toEqual({
      ok: false,
      problems: ['missing query parameter "city"'],
    });
  });

  it("names a wrong method, a placeholder left in the path and missing body fields, together", () => {
    const check = checkCall(translate, { url: "https://t.example/projects/:project/translate", method: "GET", body: '{"text":"hi"}' });
    expect(check).toEqual({
      ok: false,
      problems: ["the service is called with POST, not GET", "path parameter not filled in: :project", 'missing body field "to"'],
    });
  });

  it("refuses a missing body, a body that is not JSON, and a JSON body that is not an object", () => {
    expect(checkCall(translate, { url: "https://t.example/projects/a/translate", method: "POST" })).toEqual({
      ok: false,
      problems: ['the service needs a JSON body with "text", "to"'],
    });
    expect(checkCall(translate, { url: "https://t.example/projects/a/translate", method: "POST", body: "text=hi" })).toEqual({
      ok: false,
      problems: ["the body is not valid JSON"],
    });
    expect(checkCall(translate, { url: "https://t.example/projects/a/translate", method: "POST", body: "[1]" })).toEqual({
      ok: false,
      problems: ['missing body fields "text", "to"'],
    });
  });

  it("does not hold a service to a method it never named", () => {
    expect(checkCall({ ...weather, methodInferred: true }, { url: "https://w.example/weather?city=Oslo", method: "POST" })).toEqual({ ok: true });
  });

  it("reads a path with a malformed percent escape instead of failing on it", () => {
    expect(checkCall(weather, { url: "https://w.example/%E0%A4%A/weather?city=Oslo", method: "GET" })).toEqual({ ok: true });
  });

  describe("fields with a declared set of values (`enum`)", () => {
    const rows: InputContract = {
      method: "GET",
      query: [
        { name: "rows", type: "integer", required: true, choices: [10, 20] },
        { name: "dataset", type: "string", required: false, choices: ["sales", "traffic"] },
      ],
      path: [{ name: "region", required: true, choices: ["eu", "us"] }],
      routeTemplate: "/data/:region/rows",
    };
    const url = (path: string, query: string) => `https://d.example${path}?${query}`;

    it("lets values of the set through, and a field with a set that is not given", () => {
      expect(checkCall(rows, { url: url("/data/eu/rows", "rows=20&dataset=traffic"), method: "GET" })).toEqual({ ok: true });
      expect(checkCall(rows, { url: url("/data/us/rows", "rows=10"), method: "GET" })).toEqual({ ok: true });
    });

    it("refuses a value outside the set before any quote, naming the values the service takes", () => {
      expect(checkCall(rows, { url: url("/data/eu/rows", "rows=20&dataset=stations"), method: "GET" })).toEqual({
        ok: false,
        problems: ['"dataset" must be one of: sales, traffic (not "stations")'],
      });
      // Exactly as the service spells it, every value of a repeated parameter, and a number as a number.
      expect(checkCall(rows, { url: url("/data/eu/rows", "rows=20&dataset=SALES"), method: "GET" })).toMatchObject({
        ok: false,
        problems: ['"dataset" must be one of: sales, traffic (not "SALES")'],
      });
      expect(checkCall(rows, { url: url("/data/eu/rows", "rows=20&dataset=sales&dataset=x"), method: "GET" })).toMatchObject({ ok: false });
      expect(checkCall(rows, { url: url("/data/eu/rows", "rows=15"), method: "GET" })).toEqual({
        ok: false,
        problems: ['"rows" must be one of: 10, 20 (not "15")'],
      });
      expect(checkCall(rows, { url: url("/data/asia/rows", "rows=10"), method: "GET" })).toEqual({
        ok: false,
        problems: ['"region" must be one of: eu, us (not "asia")'],
      });
    });

    it("checks JSON and form body fields, and bounds the values named", () => {
      const many = Array.from({ length: 30 }, (_, index) => `v${index}`);
      const json: InputContract = {
        method: "POST",
        query: [],
        path: [],
        body: {
          type: "json",
          fields: [
            { name: "level", required: true, choices: [1, 2] },
            { name: "tag", required: false, choices: many },
          ],
        },
      };
      expect(checkCall(json, { url: "https://d.example/x", method: "POST", body: '{"level":2,"tag":"v29"}' })).toEqual({ ok: true });
      expect(checkCall(json, { url: "https://d.example/x", method: "POST", body: '{"level":"2"}' })).toEqual({ ok: true });
      expect(checkCall(json, { url: "https://d.example/x", method: "POST", body: '{"level":null}' })).toEqual({
        ok: false,
        problems: ['"level" must be one of: 1, 2 (not null)'],
      });
      const refused = checkCall(json, { url: "https://d.example/x", method: "POST", body: '{"level":1,"tag":"w"}' });
      expect(refused).toEqual({ ok: false, problems: [`"tag" must be one of: ${many.slice(0, 12).join(", ")} and 18 more (not "w")`] });
      const form: InputContract = {
        method: "POST",
        query: [],
        path: [],
        body: { type: "form-data", fields: [{ name: "list", required: true, choices: ["news", "offers"] }] },
      };
      const formType = BODY_CONTENT_TYPES["form-data"];
      expect(checkCall(form, { url: "https://d.example/x", method: "POST", body: "list=news", contentType: formType })).toEqual({ ok: true });
      expect(checkCall(form, { url: "https://d.example/x", method: "POST", body: "list=spam", contentType: formType })).toEqual({
        ok: false,
        problems: ['"list" must be one of: news, offers (not "spam")'],
      });
    });
  });

  describe("form and text bodies", () => {
    const subscribe: InputContract = {
      method: "POST",
      query: [],
      path: [],
      body: {
        type: "form-data",
        fields: [
          { name: "email", required: true },
          { name: "list", required: true },
          { name: "note", required: false },
        ],
      },
    };
    const summarize: InputContract = { method: "POST", query: [], path: [], body: { type: "text", fields: [] } };
    const url = "https://s.example/subscribe";
    const form = BODY_CONTENT_TYPES["form-data"];
    const text = BODY_CONTENT_TYPES.text;

    it("lets a form body with every required field through, empty values included", () => {
      expect(checkCall(subscribe, { url, method: "POST", body: "email=a%40b.example&list=news", contentType: form })).toEqual({ ok: true });
      expect(checkCall(subscribe, { url, method: "POST", body: "email=&list=news&note=hi+there", contentType: form })).toEqual({ ok: true });
    });

    it("names missing form fields, and a missing form body", () => {
      expect(checkCall(subscribe, { url, method: "POST", body: "email=a%40b.example", contentType: form })).toEqual({
        ok: false,
        problems: ['missing form field "list"'],
      });
      expect(checkCall(subscribe, { url, method: "POST", body: "note=x", contentType: form })).toEqual({
        ok: false,
        problems: ['missing form fields "email", "list"'],
      });
      expect(checkCall(subscribe, { url, method: "POST" })).toEqual({
        ok: false,
        problems: ['the service needs a form (form-data) body with "email", "list"'],
      });
    });

    it("refuses a body sent as another type than the service declared", () => {
      expect(checkCall(subscribe, { url, method: "POST", body: '{"email":"a@b.example","list":"news"}' })).toEqual({
        ok: false,
        problems: ["the service takes a form (form-data) body, not a JSON body"],
      });
      expect(checkCall(translate, { url: "https://t.example/projects/a/translate", method: "POST", body: "text=hi&to=fr", contentType: form })).toEqual({
        ok: false,
        problems: ["the service takes a JSON body, not a form (form-data) body"],
      });
      expect(checkCall(summarize, { url, method: "POST", body: "x=1", contentType: "application/xml" })).toEqual({
        ok: false,
        problems: ["the service takes a text body, not a body of type application/xml"],
      });
    });

    it("wants a text body that says something", () => {
      expect(checkCall(summarize, { url, method: "POST", body: "A long article.", contentType: text })).toEqual({ ok: true });
      expect(checkCall(summarize, { url, method: "POST", body: " \n ", contentType: text })).toEqual({ ok: false, problems: ["the text body is empty"] });
      expect(checkCall(summarize, { url, method: "POST", body: "", contentType: text })).toEqual({ ok: false, problems: ["the service needs a text body"] });
    });
  });
});
