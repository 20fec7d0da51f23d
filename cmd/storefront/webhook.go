package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"storefront/internal/mysql"
	"storefront/internal/shop"
	"storefront/internal/webhook"
)

// webhookGuard is the address rule of webhook endpoints (docs/WEBHOOKS.md#addresses-no-requests-to-the-inside).
func (e *env) webhookGuard() *webhook.Guard {
	return &webhook.Guard{AllowPrivate: e.cfg.WebhookAllowPrivate}
}

// webhookCommand runs `storefront webhook create|list|delete`.
func (e *env) webhookCommand(ctx context.Context, args []string) error {
	if len(args) == 0 {
		return usagef("webhook: the subcommands are create, list and delete")
	}
	switch args[0] {
	case "create":
		return e.webhookCreate(ctx, args[1:])
	case "list":
		return e.webhookList(ctx, args[1:])
	case "delete":
		return e.webhookDelete(ctx, args[1:])
	}
	return usagef("webhook: unknown subcommand %q; the subcommands are create, list and delete", args[0])
}

func (e *env) webhookCreate(ctx context.Context, args []string) error {
	fs := accountFlags("webhook create")
	url := fs.String("url", "", "the endpoint's URL")
	events := fs.String("events", "", "comma-separated event types (default: all)")
	account, err := fs.parse(args, "webhook create: --account ID and --url URL are required", url)
	if err != nil {
		return err
	}
	types, err := shop.ParseEventTypes(*events)
	if err != nil {
		return err
	}
	return e.withDatabase(ctx, func(db *mysql.DB) error {
		db.WebhookGuard = e.webhookGuard()
		if _, err := mysql.NewAccountService(db).FindAccountByID(ctx, account); err != nil {
			return err
		}
		ep, secret, err := mysql.NewWebhookService(db).CreateWebhookEndpoint(ctx, account, *url, types)
		if err != nil {
			return err
		}
		fmt.Fprintln(e.stdout, secret)
		fmt.Fprintf(e.stderr, "created webhook endpoint %d for account %d: %s (%s)\n", ep.ID, account, ep.URL, eventList(ep.EventTypes))
		return nil
	})
}

func eventList(types []string) string {
	if len(types) == 0 {
		return "all events"
	}
	return strings.Join(types, ",")
}

func (e *env) webhookList(ctx context.Context, args []string) error {
	account, err := accountFlags("webhook list").parse(args, "webhook list: --account ID is required")
	if err != nil {
		return err
	}
	return e.withDatabase(ctx, func(db *mysql.DB) error {
		eps, err := mysql.NewWebhookService(db).FindWebhookEndpoints(ctx, account)
		if err != nil {
			return err
		}
		for _, ep := range eps {
			state := "enabled"
			if !ep.Enabled {
				state = "disabled"
			}
			fmt.Fprintf(e.stdout, "%d\t%s\t%s\t%s\n", ep.ID, state, eventList(ep.EventTypes), ep.URL)
		}
		return nil
	})
}

func (e *env) webhookDelete(ctx context.Context, args []string) error {
	ids, err := operands("webhook delete", args, 1, "webhook delete: give the endpoint's ID")
	if err != nil {
		return err
	}
	id, err := strconv.ParseInt(ids[0], 10, 64)
	if err != nil || id <= 0 {
		return usagef("webhook delete: %q is not an endpoint ID", ids[0])
	}
	return e.withDatabase(ctx, func(db *mysql.DB) error {
		account, err := mysql.NewWebhookService(db).WebhookEndpointAccount(ctx, id)
		if err != nil {
			return err
		}
		if err := mysql.NewWebhookService(db).DeleteWebhookEndpoint(ctx, account, id); err != nil {
			return err
		}
		fmt.Fprintf(e.stderr, "deleted webhook endpoint %d of account %d\n", id, account)
		return nil
	})
}
